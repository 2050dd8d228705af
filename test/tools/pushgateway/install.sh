#!/usr/bin/env bash
# Installs the Prometheus Pushgateway that test/e2e pushes run metrics to,
# from Debian's prometheus-pushgateway package (see ../debian/install.sh).
# The only line on stdout is the binary's path.
exec bash "$(dirname "${BASH_SOURCE[0]}")/../debian/install.sh" prometheus-pushgateway prometheus-pushgateway pushgateway
