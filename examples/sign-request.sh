#!/usr/bin/env bash
# Signs one banking API request for the gateway with openssl and sends it with curl.
# The scheme is RFC 9421 (ed25519) plus an RFC 9530 Content-Digest; see SIGNING.md.
#
#   ACCESS_ID=<uuid> PRIVATE_KEY=key.pem ./examples/sign-request.sh GET  http://127.0.0.1:8080/v1/balance
#   ACCESS_ID=<uuid> PRIVATE_KEY=key.pem ./examples/sign-request.sh POST http://127.0.0.1:8080/v1/transfers '{"amount":"10.00"}'
#
# PRIVATE_KEY is a PKCS#8 PEM Ed25519 key (gatewayctl keygen, or: openssl genpkey -algorithm ed25519).
# Needs OpenSSL 3 (pkeyutl -rawin) and curl. Prints the response body; exits non-zero on HTTP >= 400.
set -euo pipefail

method=${1:?usage: sign-request.sh METHOD URL [BODY]}
url=${2:?usage: sign-request.sh METHOD URL [BODY]}
body=${3-}
: "${ACCESS_ID:?set ACCESS_ID to the Access ID of the service account}"
: "${PRIVATE_KEY:?set PRIVATE_KEY to the Ed25519 private key file (PEM)}"

# Split the URL the way curl sends it: Host is host[:port] (lower case), then the raw path and query.
rest=${url#*://}
authority=$(printf '%s' "${rest%%/*}" | tr 'A-Z' 'a-z')
target=/${rest#*/}
[ "$rest" = "${rest#*/}" ] && target=/
path=${target%%\?*}
query=
[ "$target" != "$path" ] && query=${target#*\?}

created=$(date +%s)
nonce=$(openssl rand -hex 16)
components='"@method" "@authority" "@path" "@query" "x-access-id"'
headers=(-H "x-access-id: $ACCESS_ID")
if [ -n "$body" ]; then
  digest=$(printf '%s' "$body" | openssl dgst -sha256 -binary | openssl base64 -A)
  content_digest="sha-256=:$digest:"
  components="$components \"content-digest\""
  headers+=(-H "Content-Type: application/json" -H "Content-Digest: $content_digest" --data-binary "$body")
fi
params="($components);created=$created;nonce=\"$nonce\";alg=\"ed25519\";keyid=\"$ACCESS_ID\""

# The signature base: one line per covered component, then @signature-params, no final newline.
base_file=$(mktemp)
trap 'rm -f "$base_file"' EXIT
{
  printf '"@method": %s\n' "$method"
  printf '"@authority": %s\n' "$authority"
  printf '"@path": %s\n' "$path"
  printf '"@query": ?%s\n' "$query"
  printf '"x-access-id": %s\n' "$ACCESS_ID"
  [ -n "$body" ] && printf '"content-digest": %s\n' "$content_digest"
  printf '"@signature-params": %s' "$params"
} > "$base_file"

signature=$(openssl pkeyutl -sign -inkey "$PRIVATE_KEY" -rawin -in "$base_file" | openssl base64 -A)

curl -sS --fail-with-body -X "$method" "${headers[@]}" \
  -H "Signature-Input: sig1=$params" \
  -H "Signature: sig1=:$signature:" \
  "$url"
