#!/usr/bin/env bash
# Installs the Debian 12 packages arbiter needs to build, test and run, when
# any is missing.  A no-op when all are there.  Not root: prints the command.
set -euo pipefail

packages=(
    build-essential pkg-config            # compiler, make, pkg-config
    libmicrohttpd-dev libsystemd-dev libpq-dev libevent-dev libjansson-dev libssl-dev
    libcmocka-dev libcurl4-openssl-dev    # tests; libcurl also builds arbiterctl and arbiter-bots
    postgresql dbus                       # the test harness and `make run` start their own
    acl                                   # `make run` under /root: setfacl lets postgres reach var/pg
    curl jq socat                         # integration tests and `make run`
    systemd libxml2-utils                 # systemd-analyze verify/security, xmllint for the D-Bus policy
    wrk nginx-light libnginx-mod-nchan    # `make bench`: load generator and the reference servers (nginx, nchan)
    clang libclang-rt-14-dev              # `make fuzz` (libFuzzer)
    chromium chromium-driver python3-selenium  # browser tests of web/ and `make screenshots`
    gcc-avr avr-libc binutils-avr simavr libsimavr-dev libelf-dev  # `make firmware` and the emulated pads of issue 16
)

missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [[ $status == installed ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
    echo "arbiter needs these Debian packages: ${missing[*]}" >&2
    echo "run as root:  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
fi

echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
