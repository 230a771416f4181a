#!/usr/bin/env python3
# Packs a trace directory into one input of the report fuzzer
# (report_fuzz.c): each file the reader reads, after "TRF:" and its letter.
#   tests/fuzz/pack.py TRACE_DIR > tests/fuzz/corpus/NAME
import os
import sys

# .tracer/kallsyms ("k") is left out: the kernel's symbols are megabytes.
LETTERS = {".tracer/events": "e", ".tracer/stacks": "s",
           ".tracer/channels": "c", ".tracer/context": "x", ".tracer/printk_formats": "p",
           "rare_0": "a", "rare_1": "b"}
LETTERS.update({"channel0_%d" % cpu: str(cpu) for cpu in range(4)})

if len(sys.argv) != 2:
    sys.exit("usage: pack.py TRACE_DIR > INPUT")
out = sys.stdout.buffer
for name, letter in LETTERS.items():
    path = os.path.join(sys.argv[1], name)
    if os.path.exists(path):
        with open(path, "rb") as f:
            out.write(b"TRF:" + letter.encode() + f.read())
