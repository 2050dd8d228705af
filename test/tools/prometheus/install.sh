#!/usr/bin/env bash
# Installs the Prometheus server that test/e2e balances on (it scrapes the
# resource metrics kwok emulates, and rebalancer queries it), from Debian's
# prometheus package (see ../debian/install.sh).
# The only line on stdout is the binary's path.
exec bash "$(dirname "${BASH_SOURCE[0]}")/../debian/install.sh" prometheus prometheus prometheus
