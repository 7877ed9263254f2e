#!/usr/bin/env bash
# Regenerates Tests/Fixtures/<name>/: real programs run under tmux (which provides the PTY).
# tmux's pipe-pane captures the exact bytes each program wrote (output.raw); tmux's own
# emulator, independent of reel, provides the expected screen (screen.txt) and cursor
# (cursor.txt, "col,row"). The program is stopped (SIGSTOP) before the capture so the bytes
# and the screen describe the same moment.
#
# Needs: tmux, vim, less, htop, man-db, mc, nano (apt-get install tmux vim less htop man-db mc nano).
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/Fixtures
sock=reel-fixtures
cols=80
rows=24
work=$(mktemp -d)
trap 'tmux -L $sock kill-server 2>/dev/null || true; rm -rf "$work"' EXIT

cat > "$work/sample.txt" <<'TXT'
reel fixture file
The quick brown fox jumps over the lazy dog.
中文字符和日本語のテキスト — wide characters
emoji: 👍 ❤ ☕ and combining: é ñ ü
    indented line with	a tab
last line
TXT
seq 1 300 | sed 's/^/line number /' > "$work/long.txt"
cp "$work/sample.txt" "$work/notes.txt"

# capture NAME SETTLE_SECONDS COMMAND [KEY...]
# A KEY is a tmux key name (Enter, Escape, Space, Down, C-c…) or "text:…" typed literally.
capture() {
  local name=$1 settle=$2 cmd=$3
  shift 3
  local dir="$out/$name"
  mkdir -p "$dir"
  printf 'sleep 0.5\ncd %s\nexec %s\n' "$work" "$cmd" > "$work/run-$name.sh"
  tmux -L $sock kill-server 2>/dev/null || true
  tmux -L $sock -f /dev/null new-session -d -x $cols -y $rows -s fx \
    "env TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME=$work PS1='\$ ' sh $work/run-$name.sh"
  tmux -L $sock set -g status off
  tmux -L $sock pipe-pane -o -t fx "cat > '$PWD/$dir/output.raw'"
  sleep 1.2
  for key in "$@"; do
    case "$key" in
      text:*) tmux -L $sock send-keys -t fx -l "${key#text:}" ;;
      *) tmux -L $sock send-keys -t fx "$key" ;;
    esac
    sleep 0.3
  done
  sleep "$settle"
  local pid
  pid=$(tmux -L $sock display -p -t fx '#{pane_pid}')
  # Freeze the program so nothing more is written between the capture of bytes and screen.
  pkill -STOP -P "$pid" 2>/dev/null || true
  kill -STOP "$pid" 2>/dev/null || true
  sleep 0.5
  tmux -L $sock capture-pane -p -t fx > "$dir/screen.txt"
  tmux -L $sock display -p -t fx '#{cursor_x},#{cursor_y}' > "$dir/cursor.txt"
  tmux -L $sock pipe-pane -t fx  # close the capture before anything else can be written
  sleep 0.3
  pkill -KILL -P "$pid" 2>/dev/null || true
  kill -KILL "$pid" 2>/dev/null || true
  tmux -L $sock kill-server 2>/dev/null || true
  sleep 0.3
  echo "$name: $(wc -c < "$dir/output.raw") bytes"
}

capture vim 1 "vim -u NONE -N -c 'syntax on' -c 'set number' sample.txt" \
  G o "text:Typed in vim: résumé 中文 👍" Escape g g / "text:fox" Enter
capture less 1 "less long.txt" Space Space / "text:number 1[05]0" Enter
capture htop 2.5 "htop -d 100"
capture man 1 "env MANPAGER=less man bash" Space / "text:BUILTIN COMMANDS" Enter
capture mc 2.5 "mc --nosubshell" F9 Down
capture nano 1 "nano notes.txt" Down Down End "text: edited in nano ✓"
capture shell 1 "bash --norc --noprofile -i" \
  "text:ls -la --color=always /usr/share | head -12" Enter \
  "text:printf '\\e[1;31mred\\e[0m \\e[38;5;82mgreen\\e[0m 中文 👍🏽 e\\u0301\\n'" Enter \
  "text:seq 1 5" Enter
