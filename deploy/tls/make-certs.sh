#!/usr/bin/env bash
# Makes the certificates kjudge's TLS needs, with openssl: a private CA and the server's
# certificate signed by it, for the names and addresses workers and clients dial.
#
#   deploy/tls/make-certs.sh DIR NAME_OR_IP [NAME_OR_IP ...]
#   deploy/tls/make-certs.sh /etc/kjudge/tls judge.example.org 10.0.0.5 kjudge-server kjudge-server.kjudge.svc
#
# Writes into DIR (created with mode 700):
#   ca.pem      the CA certificate: give it to every worker and client (--tls-ca, KJUDGE_TLS_CA)
#   ca.key      the CA's private key (mode 600): keep it offline; needed only to sign more servers
#   server.pem  the server's certificate, subjectAltName = each NAME_OR_IP given (--tls-cert)
#   server.key  the server's private key (mode 600; --tls-key), readable by the server's user only
# An existing ca.pem/ca.key in DIR is reused (a new server certificate signed by the same CA), so
# workers keep trusting it; an existing server.pem/server.key is replaced.
# Environment: KJUDGE_TLS_DAYS (server certificate validity, default 825), KJUDGE_TLS_CA_DAYS
# (default 3650).
set -euo pipefail
usage() { echo "usage: $0 DIR NAME_OR_IP [NAME_OR_IP ...]  (the DNS names and IP addresses clients dial)" >&2; exit 2; }
(($# >= 2)) || usage
dir=$1
shift
command -v openssl >/dev/null || { echo "$0: openssl is not installed (Debian: apt-get install openssl)" >&2; exit 1; }
sans=()
for name in "$@"; do
  if [[ "$name" =~ ^[0-9.]+$ || "$name" == *:* ]]; then sans+=("IP:$name"); else sans+=("DNS:$name"); fi
done
san=$(IFS=,; echo "${sans[*]}")
umask 077
mkdir -p "$dir"
chmod 700 "$dir"
cd "$dir"
if [[ -s ca.pem && -s ca.key ]]; then
  echo "make-certs: reusing the CA in $dir/ca.pem"
else
  openssl req -x509 -newkey rsa:3072 -nodes -sha256 -days "${KJUDGE_TLS_CA_DAYS:-3650}" \
    -keyout ca.key -out ca.pem -subj "/CN=kjudge CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  echo "make-certs: new CA $dir/ca.pem"
fi
openssl req -newkey rsa:3072 -nodes -sha256 -keyout server.key -out server.csr -subj "/CN=$1" 2>/dev/null
printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n' \
  "$san" > server.ext
openssl x509 -req -sha256 -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days "${KJUDGE_TLS_DAYS:-825}" \
  -out server.pem -extfile server.ext 2>/dev/null
rm -f server.csr server.ext
chmod 600 ca.key server.key
chmod 644 ca.pem server.pem
openssl verify -CAfile ca.pem server.pem >/dev/null
echo "make-certs: $dir/server.pem for $san (key $dir/server.key, mode 600)"
echo "make-certs: server: --tls-cert $dir/server.pem --tls-key $dir/server.key; workers and clients: --tls-ca $dir/ca.pem"
