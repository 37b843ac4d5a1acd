#!/usr/bin/env bash
# Screenshots of the dashboard over an existing kjudge database (e.g. one copied back from a GPU
# run), for the README: the overview and one job's page, as PNG files.
#
#   bench/dashboard/screenshots.sh DB OUT_DIR [JOB_ID] [BUILD_DIR]
#
# JOB_ID defaults to the newest CORRECT job. Needs build/bin/kjudge-dashboard and Debian's
# chromium. The dashboard runs without auth on a loopback port and reads DB read-only; a copy
# of a live server's file is fine (copy the -wal file with it, or checkpoint first).
set -euo pipefail
cd "$(dirname "$0")/../.."
db=${1:?usage: screenshots.sh DB OUT_DIR [JOB_ID] [BUILD_DIR]}
out=${2:?usage: screenshots.sh DB OUT_DIR [JOB_ID] [BUILD_DIR]}
build=${4:-build}
job=${3:-$(sqlite3 -readonly "$db" "SELECT id FROM jobs WHERE verdict = 1 ORDER BY id DESC LIMIT 1")}
[ -n "$job" ] || { echo "screenshots.sh: no CORRECT job in $db; pass a JOB_ID" >&2; exit 2; }
command -v chromium >/dev/null || { echo "screenshots.sh: chromium not found (apt-get install chromium)" >&2; exit 2; }
mkdir -p "$out"
port=${KJUDGE_DASHBOARD_PORT:-18080}
"$build/bin/kjudge-dashboard" --db "$db" --problems problems --listen "127.0.0.1:$port" >"$out/dashboard.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q "kjudge-dashboard: http" "$out/dashboard.log" && break; sleep 0.1; done
shot() {  # $1 = path, $2 = file name
  chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$(mktemp -d)" \
    --virtual-time-budget=3000 --window-size=1280,1500 --screenshot="$out/$2" "http://127.0.0.1:$port$1" 2>/dev/null
  echo "$out/$2 ($1)"
}
shot / overview.png
shot "/jobs/$job" job.png
