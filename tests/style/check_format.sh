#!/usr/bin/env bash
# The C++ sources of src, models, losses and tests are as .clang-format formats them (clang-format 14, Debian 12's),
# and no line is wider than 120 characters. To fix: clang-format -i FILE.
set -uo pipefail
root=${1:?usage: check_format.sh SOURCE_DIR}
cd "$root" || exit 2
format=$(command -v clang-format-14 || command -v clang-format) || {
  echo "check_format.sh: clang-format is not installed (Debian: apt-get install clang-format; ./build.sh test does)"
  exit 1
}
mapfile -t files < <(find src models losses tests -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) | sort)
[ ${#files[@]} -gt 0 ] || { echo "check_format.sh: no C++ file found under $root"; exit 1; }
status=0
"$format" --dry-run -Werror "${files[@]}" || status=1
# Characters, not bytes (comments hold Greek letters; Debian's awk counts bytes).
wide=$(python3 - "${files[@]}" <<'PY'
import sys
for name in sys.argv[1:]:
    with open(name, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if len(line.rstrip("\n")) > 120:
                print(f"{name}:{number}: {len(line.rstrip())} characters")
PY
)
if [ -n "$wide" ]; then
  echo "lines over 120 characters:"
  echo "$wide"
  status=1
fi
[ $status -eq 0 ] && echo "check_format.sh: ${#files[@]} files formatted, none over 120 characters"
exit $status
