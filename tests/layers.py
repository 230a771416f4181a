#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""make layers: the call graph between the folders of user/ and cli/.

An edge A -> B says that code in folder A calls a function, or reads a
variable, that folder B defines (from the objects' symbol tables, nm), or
includes one of B's headers (from the sources).  Prints every edge with
its count and an example, then fails (exit 1) on:
  - a cycle between folders (inside a folder files may call each other);
  - an edge user/README.md's table does not allow;
  - two sources with the same file name (the archive keeps one of them);
  - cli/ including a header other than include/tracer/'s public ones and its own.
usage: tests/layers.py BUILD_DIR
"""
import os, re, subprocess, sys
from collections import defaultdict

def folder_of(path):
    parts = path.split('/')
    if parts[0] == 'user' and len(parts) > 2:
        return parts[1]
    return parts[0]

def allowed_edges():
    """user/README.md's table: | `folder/` | may call | what it holds |"""
    allowed = {}
    for line in open('user/README.md'):
        m = re.match(r'\|\s*`(\w+)/`\s*\|\s*([^|]*)\|', line)
        if m:
            calls = re.findall(r'`?(\w+)/?`?', m.group(2))
            allowed[m.group(1)] = {c for c in calls if c not in ('nothing', '-')}
    return allowed

def symbol_edges(build):
    defined, used = {}, defaultdict(set)
    # libtracer-ust's objects are position-independent ones (pic/).
    tops = ('user', 'cli', 'pic/user/ust')
    for root, _, files in [w for top in tops for w in os.walk(os.path.join(build, top))]:
        for f in files:
            if f.endswith('.o'):
                obj = os.path.join(root, f)
                src = os.path.relpath(obj, build)[:-2] + '.c'
                src = src[len('pic/'):] if src.startswith('pic/') else src
                out = subprocess.run(['nm', obj], capture_output=True, text=True, check=True).stdout
                for line in out.splitlines():
                    p = line.split()
                    if len(p) == 2 and p[0] == 'U':
                        used[src].add(p[1])
                    elif len(p) == 3 and p[1] in 'TDBRVWC':
                        defined[p[2]] = src
    edges = defaultdict(lambda: defaultdict(list))
    for src, syms in used.items():
        for s in sorted(syms):
            if s in defined and folder_of(defined[s]) != folder_of(src):
                edges[folder_of(src)][folder_of(defined[s])].append(f'{src} calls {s} ({defined[s]})')
    return edges

def include_edges(edges):
    srcs = []
    for top in ('user', 'cli'):
        for root, _, files in os.walk(top):
            srcs += [os.path.join(root, f) for f in files if f.endswith(('.c', '.h'))]
    bad = []
    for src in sorted(srcs):
        for n, line in enumerate(open(src), 1):
            m = re.match(r'#include "([^"]+)"', line)
            if not m:
                continue
            inc = m.group(1)
            if folder_of(src) == 'cli':
                own = os.path.normpath(os.path.join(os.path.dirname(src), inc))
                if not (own.startswith('cli/') and os.path.exists(own)):
                    bad.append(f'{src}:{n}: cli/ includes "{inc}", not a public header (<tracer/...>) nor its own')
                continue
            target = os.path.normpath(os.path.join('user', inc))
            if os.path.exists(target) and folder_of(target) != folder_of(src):
                edges[folder_of(src)][folder_of(target)].append(f'{src}:{n} includes {inc}')
    return bad

def cycles(edges):
    found, state = [], {}
    def visit(node, path):
        state[node] = 1
        for nxt in sorted(edges.get(node, {})):
            if state.get(nxt) == 1:
                found.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2
    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    return found

def same_names():
    seen, bad = {}, []
    for root, _, files in os.walk('user'):
        for f in files:
            if f.endswith('.c') and not root.startswith('user/ust'):
                if f in seen:
                    bad.append(f'user/: two sources named {f}: {seen[f]} and {root}')
                seen[f] = root
    return bad

def main():
    build = sys.argv[1] if len(sys.argv) > 1 else 'build'
    edges = symbol_edges(build)
    problems = include_edges(edges) + same_names()
    allowed = allowed_edges()
    print('The folders of user/ and cli/, and what each calls (count, one example):')
    for a in sorted(edges):
        for b in sorted(edges[a]):
            why = edges[a][b]
            mark = '' if b in allowed.get(a, set()) else '   <- not in user/README.md'
            print(f'  {a:8} -> {b:8} {len(why):4}  {why[0]}{mark}')
            if mark:
                problems.append(f'{a} -> {b} is not allowed by user/README.md: {why[0]}')
    for c in cycles(edges):
        problems.append('a cycle: ' + ' -> '.join(c))
    for p in problems:
        print('layers: ' + p)
    print('layers: ' + ('FAILED' if problems else 'no cycle, every edge allowed'))
    return 1 if problems else 0

sys.exit(main())
