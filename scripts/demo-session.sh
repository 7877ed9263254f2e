printf '\033]0;reel demo\007\033[1;34mreel demo\033[0m — colours, CJK 中文字, emoji 👍🏽 👨‍👩‍👧\n'
ls -l --color=always /usr/share/doc/bash | head -8
printf '\033[38;5;208morange\033[0m \033[48;2;30;60;90m rgb bg \033[0m \033[4:3mcurly\033[0m \033(0lqqk\033(B\n'
vim -u NONE -N -c 'syntax on' -c 'set number' -c 'redraw' -c 'sleep 800m' -c 'qa!' /etc/services 2>/dev/null || true
TERM=xterm-256color timeout --foreground 1.2 htop 2>/dev/null || true
for i in 1 2 3; do printf 'step %s of 3\n' "$i"; sleep 0.1; done
