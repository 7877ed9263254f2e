#!/usr/bin/env bash
# The session recorded into recordings/build-log.reel: a colourful compiler run (warnings,
# an error with carets and fix-it hints), then a passing build and a test summary.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/ring.c" <<'C'
#include <stdio.h>
#include <string.h>
struct ring { char *data; unsigned head, tail, size; };
static int ring_put(struct ring *r, const char *bytes, int n) {
  int i;
  for (i = 0; i < n; i++) { r->data[(r->head + i) % r->size] = bytes[i]; }
  r->head += n;
}
int main(int argc, char **argv) {
  char buffer[16];
  struct ring r = { buffer, 0, 0, sizeof buffer };
  unsigned long unused;
  ring_put(&r, argv[0], strlen(argv[0]));
  printf("%d\n", r.head)
  return 0;
}
C
printf '\033[1;36m==> building ring (debug)\033[0m\n'
gcc -fdiagnostics-color=always -Wall -Wextra -c "$dir/ring.c" -o "$dir/ring.o" 2>&1 | sed "s|$dir/||g"
printf '\033[1;31m==> build failed\033[0m, fixing the missing semicolon\n'
sed -i 's/r.head)$/r.head);/' "$dir/ring.c"
gcc -fdiagnostics-color=always -Wall -c "$dir/ring.c" -o "$dir/ring.o" 2>&1 | sed "s|$dir/||g"
printf '\033[1;36m==> linking\033[0m\n'
gcc "$dir/ring.o" -o "$dir/ring" && "$dir/ring"
for t in put wrap overflow empty; do
  sleep 0.05
  printf '  \033[32m✔\033[0m ring_%-10s \033[2m(%d ms)\033[0m\n' "$t" $((RANDOM % 9 + 1))
done
printf '\033[1;32m4 passed\033[0m, \033[33m2 warnings\033[0m\n'
