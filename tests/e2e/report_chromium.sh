#!/usr/bin/env bash
# The HTML report in a real browser: headless Chromium renders it (a
# screenshot that is not blank) and its DOM holds the expected tables and
# charts. Skips (77) where Chromium is not installed; scripts/setup-deps.sh
# installs it for CI.
set -u
BIN=$1
SRC=$2
CHROME=
for c in chromium chromium-browser google-chrome; do
  command -v "$c" >/dev/null && { CHROME=$c; break; }
done
[ -n "$CHROME" ] || { echo "chromium not installed: skip"; exit 77; }
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skip"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checks=0
check() { # check DESCRIPTION COMMAND...
  local what=$1; shift
  checks=$((checks + 1))
  if ! "$@"; then echo "FAIL: $what"; fails=$((fails + 1)); fi
}

db=$tmp/r.db
for i in 1 2 3 4; do
  "$BIN" run --db "$db" 'gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1' >/dev/null 2>&1
done
check "synthetic store" sqlite3 -bail "$db" ".read $SRC/tests/e2e/reports_store.sql"
check "html report" "$BIN" report --db "$db" --format html -o "$tmp/r.html"

# Chromium wants a writable profile and a home; a CI container may have
# neither. No network is needed: the page is one file.
export HOME=$tmp
chrome() {
  timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu \
    --user-data-dir="$tmp/profile" --no-first-run --disable-extensions \
    "$@" "file://$tmp/r.html" 2>"$tmp/chrome.err"
}
chrome --dump-dom >"$tmp/dom.html"
check "dump-dom ran" test -s "$tmp/dom.html" || cat "$tmp/chrome.err"
dom_has() { grep -qF -- "$1" "$tmp/dom.html" || { echo "DOM lacks: $1"; return 1; }; }
for t in runs summary coverage coverage-failing failures timings; do
  check "DOM table $t" dom_has "<table class=\"$t\">"
done
check "DOM coverage value" dom_has '<span class="bad">&lt;odd&gt;&nbsp;4 (1 failed)</span>'
check "DOM contention figure" dom_has "<h3>index_reduce reduce=amin dt=f32 ip=rand self=0, 2 threads, warm</h3>"
check "DOM contention panels" dom_has 'aria-label="row width C = 8"'
check "DOM history chart" dom_has 'aria-label="cpu.omp, 2 threads, warm"'
check "DOM escaped message" dom_has '&lt;b&gt;"quoted", comma&lt;/b&gt; &amp; more'
check "DOM no script" bash -c "! grep -q '<script' '$tmp/dom.html'"
check "DOM timing row, marked the winner" dom_has '<tr class="win"><td>cpu.omp <span class="win">'
check "DOM timing row's median" dom_has '</span></td><td class="n">1.00 ms</td>'

chrome --screenshot="$tmp/shot.png" --window-size=1280,2400 >/dev/null
check "screenshot written" test -s "$tmp/shot.png" || cat "$tmp/chrome.err"
# Not blank: many colours and a fair share of non-white pixels (decoded
# with Python's zlib when Python is there; else the PNG's size, since a
# blank page compresses to a few kilobytes).
if command -v python3 >/dev/null; then
  check "screenshot not blank" python3 - "$tmp/shot.png" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat, w = 8, b'', 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        assert depth == 8 and ctype in (2, 6), 'unexpected PNG format'
        bpp = 3 if ctype == 2 else 4
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colors, inked, total = set(), 0, 0
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    if y % 4 == 0:
        for x in range(0, w, 4):
            px = bytes(line[x * bpp:x * bpp + 3])
            colors.add(px)
            inked += px != b'\xff\xff\xff'
            total += 1
print(f'{len(colors)} colours, {100 * inked / total:.1f}% not white')
sys.exit(0 if len(colors) > 20 and inked > total // 100 else 1)
EOF
else
  check "screenshot not blank" test "$(stat -c %s "$tmp/shot.png")" -gt 30000
fi

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
