#!/usr/bin/env bash
# A Python environment whose confluent-kafka speaks GSSAPI (Kerberos), for the Kerberos tests and for users who
# need it: the confluent-kafka wheels on PyPI bundle a librdkafka built without Cyrus SASL, so GSSAPI is refused.
#
#   bash scripts/gssapi-client.sh [VENV] [BASE_VENV]     (default .venv-gssapi over .venv)
#
# 1. Debian's MIT Kerberos (KDC, kinit, headers) and Cyrus SASL with its GSSAPI module, installed when missing
#    (as root; otherwise the apt-get line to run is printed).
# 2. librdkafka 2.15.1 built with GSSAPI from the source Confluent publishes on npm (@confluentinc/kafka-javascript
#    1.10.1 carries it under deps/librdkafka; GitHub is not reachable here), checked against npm's sha512, into
#    ~/.cache/kafkactl/gssapi-client (once: about 30 s on 2 cores).
# 3. VENV: confluent-kafka 2.15.1 built from its sdist against that librdkafka, and the gssapi package (kafka-python's
#    GSSAPI), then a .pth that adds BASE_VENV's packages (kafkactl and the rest) behind them.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-.venv-gssapi}
BASE=${2:-.venv}
LIBRDKAFKA=2.15.1
TARBALL=https://registry.npmjs.org/@confluentinc/kafka-javascript/-/kafka-javascript-1.10.1.tgz
INTEGRITY=KVePUBn21EqCVP9mfxzEuM3SYJHHEF7X+iiC2e43QQgDSyEaksInmCGooT3w5q+cNAdkSCrK71j0ICfqoSqZLw==
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kafkactl/gssapi-client
PREFIX=$CACHE/librdkafka-$LIBRDKAFKA
PACKAGES="krb5-kdc krb5-admin-server krb5-user libkrb5-dev libsasl2-dev libsasl2-modules-gssapi-mit libssl-dev
  libzstd-dev liblz4-dev libcurl4-openssl-dev build-essential pkg-config faketime"

missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "gssapi-client: missing Debian packages; run: sudo apt-get install$missing" >&2
    exit 1
  fi
  echo "gssapi-client: installing$missing" >&2
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null
fi

if [ ! -e "$PREFIX/.complete" ]; then
  echo "gssapi-client: building librdkafka $LIBRDKAFKA with GSSAPI into $PREFIX" >&2
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  curl -fsSL "$TARBALL" -o "$work/pkg.tgz"
  got=$(openssl dgst -sha512 -binary "$work/pkg.tgz" | openssl base64 -A)
  if [ "$got" != "$INTEGRITY" ]; then
    echo "gssapi-client: $TARBALL does not match npm's sha512 (got $got)" >&2
    exit 1
  fi
  tar -xzf "$work/pkg.tgz" -C "$work" package/deps/librdkafka
  (cd "$work/package/deps/librdkafka" \
    && ./configure --prefix="$PREFIX" --enable-gssapi --enable-ssl --enable-zstd --enable-curl >"$work/configure.log" 2>&1 \
    && make -C src -j"$(nproc)" >"$work/make.log" 2>&1 \
    && make -C src install >>"$work/make.log" 2>&1) || {
      echo "gssapi-client: building librdkafka failed; the end of its log:" >&2
      tail -20 "$work/configure.log" "$work/make.log" >&2 || true
      exit 1
    }
  touch "$PREFIX/.complete"
fi

if [ ! -x "$BASE/bin/python" ]; then
  echo "gssapi-client: $BASE is not a virtualenv (make install makes .venv)" >&2
  exit 1
fi
if [ ! -e "$VENV/.complete" ]; then
  rm -rf "$VENV"
  "$BASE/bin/python" -c 'import sys, venv; venv.create(sys.argv[1], with_pip=True)' "$VENV" 2>/dev/null \
    || python3 -m venv "$VENV"
  # before the .pth: pip must not see (and try to replace) the base's confluent-kafka
  C_INCLUDE_PATH="$PREFIX/include" LIBRARY_PATH="$PREFIX/lib" LDFLAGS="-Wl,-rpath,$PREFIX/lib" \
    "$VENV/bin/pip" install -q --no-binary confluent-kafka "confluent-kafka==$LIBRDKAFKA" "gssapi>=1.8"
  base_site=$("$BASE/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  site=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo "import site; site.addsitedir('$base_site')" > "$site/zz-kafkactl-base.pth"
  touch "$VENV/.complete"
fi
"$VENV/bin/python" - <<'EOF'
import confluent_kafka
from confluent_kafka.admin import AdminClient
AdminClient({"bootstrap.servers": "localhost:1", "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI",
             "sasl.kerberos.min.time.before.relogin": 0, "log_level": 0})
import gssapi, kafkactl  # noqa: E401,F401
print(f"gssapi-client: confluent-kafka {confluent_kafka.__version__} (librdkafka {confluent_kafka.libversion()[0]}) "
      "with GSSAPI", flush=True)
EOF
