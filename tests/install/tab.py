#!/usr/bin/env python3
"""Types into an interactive bash, as a user would, and prints the line
bash holds after the last Tab: the completion as the shell performs it;
then what bash showed after the last TEXT was typed, a word a line: a
TEXT that is a Tab makes a double Tab, which lists the choices.

    tab.py COMPLETION_FILE TEXT...

Each TEXT is typed and followed by a Tab, in that order; PATH and the rest
come from the environment.  Exit status 0, or 1 when bash did not answer
within 60 seconds (said on stderr).

A completion that runs a program may make readline flush what was typed
ahead, so the next TEXT is typed only once the last Tab is done: Ctrl-Y
is bound to print a numbered copy of the line ("[N<<LINE>>]"), and it is
pressed again until copy N shows up (a press lost to a flush never prints).
"""
import os
import pty
import re
import select
import signal
import sys
import time


def read_more(fd, seconds):
    """What fd says within seconds: b"" when it said nothing, None at its end."""
    if not select.select([fd], [], [], seconds)[0]:
        return b""
    try:
        return os.read(fd, 4096) or None
    except OSError:
        return None


class Shell:
    def __init__(self, completion):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["TERM"] = "dumb"
            os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
        self.said = b""
        self.copies = 0
        os.write(self.fd, ("PS1='READY> '; bind 'set bell-style none'; copy=0; "
                           "bind -x '\"\\C-y\": copy=$((copy + 1)); "
                           "printf \"[%d<<%s>>]\" $copy \"$READLINE_LINE\"'; "
                           "source /usr/share/bash-completion/bash_completion; "
                           f"source '{completion}'; echo SET''UP\n").encode())

    def wait_for(self, pattern, seconds, then=None):
        """The match of pattern in what bash says, or None after seconds;
        then (bytes) is typed again each second until it matches."""
        end = time.monotonic() + seconds
        while True:
            found = re.search(pattern, self.said)
            if found:
                return found
            left = end - time.monotonic()
            if left <= 0:
                return None
            if then:
                os.write(self.fd, then)
            more = read_more(self.fd, min(left, 1.0))
            if more is None:
                return None
            self.said += more

    def line(self):
        """The line bash holds, once every key typed so far was taken."""
        self.copies += 1
        os.write(self.fd, b"\x19")
        found = self.wait_for(rb"\[%d<<([^\r\n]*?)>>\]" % self.copies, 20)
        if found:
            # Presses that came after the awaited one printed copies too.
            self.copies = max(int(n) for n in re.findall(rb"\[(\d+)<<", self.said))
        return found.group(1).decode(errors="replace") if found else None

    def close(self):
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)


def main():
    shell = Shell(sys.argv[1])
    try:
        if not shell.wait_for(rb"SETUP\r\nREADY> ", 60):
            sys.stderr.write("tab.py: bash did not start\n")
            return 1
        line = ""
        for text in sys.argv[2:]:
            shown_from = len(shell.said)
            os.write(shell.fd, text.encode() + b"\t")
            line = shell.line()
            if line is None:
                sys.stderr.write(f"tab.py: no answer after {text!r}\n")
                return 1
        print(line)
        shown = shell.said[shown_from:].decode(errors="replace")
        shown = re.sub(r"\[\d+<<.*?>>\]", "", shown)
        for word in shown.split():
            print(word)
        return 0
    finally:
        shell.close()


sys.exit(main())
