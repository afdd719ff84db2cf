#!/usr/bin/env python3
"""Checks that the simulator's libraries include only the layers below them.

The layers are the tlmgpu_layer_library() calls in CMakeLists.txt: each names
a library, its folders and the libraries it uses (USES: its headers include
them; PRIVATE_USES: only its sources do). This script reads those calls, so
the rules the build enforces (each library compiles against the include
roots of itself and what it uses) and the rules checked here are one table.
The compiler only sees a header through the sources that include it; this
check reads every file, headers no source of their own layer includes too.

  python3 scripts/check_layers.py [--root DIR]    exit 1 on an upward include
  python3 scripts/check_layers.py --graph         the include graph by layer
  python3 scripts/check_layers.py --self-test     the checker against made-up trees

Files outside every layer's folders (sc_main.cpp, workloads/, tools/, tests/,
vp/, fuzz/, bench/) are the top: they may include anything. A new folder
under model/ must be given a layer (each of model/'s folders is one).
"""
import argparse
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
LAYER_CALL = re.compile(r'^\s*tlmgpu_layer_library\(([^)]*)\)', re.M | re.S)
SOURCE_SUFFIXES = ('.h', '.cpp', '.cpp.in', '.h.in')


class Layer:
    def __init__(self, name, folders, uses, private_uses):
        self.name = name
        self.folders = folders
        self.uses = uses
        self.private_uses = private_uses

    def may_include(self):
        return {self.name} | set(self.uses) | set(self.private_uses)


def read_layers(cmake_text):
    """The tlmgpu_layer_library(NAME FOLDERS ... USES ... PRIVATE_USES ...) calls, in order."""
    layers = []
    for match in LAYER_CALL.finditer(cmake_text):
        body = re.sub(r'#[^\n]*', '', match.group(1)).split()
        name, fields, key = body[0], {'FOLDERS': [], 'USES': [], 'PRIVATE_USES': []}, None
        for word in body[1:]:
            if word in fields:
                key = word
            elif key is None:
                raise ValueError(f'tlmgpu_layer_library({name}): "{word}" before FOLDERS')
            else:
                fields[key].append(word)
        layers.append(Layer(name, fields['FOLDERS'], fields['USES'], fields['PRIVATE_USES']))
    return layers


def check_table(layers):
    """Errors in the table itself: unknown libraries, a folder in two layers, a cycle."""
    errors = []
    names = {l.name for l in layers}
    owner = {}
    for layer in layers:
        for used in layer.uses + layer.private_uses:
            if used not in names:
                errors.append(f'{layer.name} uses {used}, which is no layer library')
        for folder in layer.folders:
            if folder in owner:
                errors.append(f'{folder} is in both {owner[folder]} and {layer.name}')
            owner[folder] = layer.name
    # A library may use only libraries declared before it: the order is the layering.
    seen = set()
    for layer in layers:
        for used in layer.uses + layer.private_uses:
            if used in names and used not in seen:
                errors.append(f'{layer.name} uses {used}, declared after it (a layer uses only those below)')
        seen.add(layer.name)
    return errors


def layer_of(path, layers):
    """The layer whose folder holds `path` (relative, '/'-separated); the longest folder wins."""
    best = None
    for layer in layers:
        for folder in layer.folders:
            if path == folder or path.startswith(folder + '/'):
                if best is None or len(folder) > len(best[1]):
                    best = (layer, folder)
    return best[0] if best else None


def source_files(root):
    for directory, subdirs, files in os.walk(root):
        rel_dir = os.path.relpath(directory, root)
        subdirs[:] = sorted(d for d in subdirs
                            if not d.startswith('.') and not (rel_dir == '.' and d.startswith('build')))
        for f in sorted(files):
            if f.endswith(SOURCE_SUFFIXES):
                yield os.path.normpath(os.path.join(rel_dir, f)).replace(os.sep, '/')


def includes(root, rel):
    with open(os.path.join(root, rel), encoding='utf-8', errors='replace') as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1)


def scan(root, layers):
    """(violations, edges): edges[(from, to)] = [header edges, source edges]."""
    violations, edges = [], {}
    layer_folders = {f for l in layers for f in l.folders}
    for rel in source_files(root):
        here = layer_of(rel, layers)
        if here is None:
            # model/ is split into layers folder by folder: a new one needs its own.
            parts = rel.split('/')
            if len(parts) > 2 and parts[0] == 'model' and f'model/{parts[1]}' not in layer_folders:
                violations.append(f'{rel}: model/{parts[1]} belongs to no layer (add it to a '
                                  'tlmgpu_layer_library() call in CMakeLists.txt)')
            continue
        for number, target in includes(root, rel):
            if not os.path.exists(os.path.join(root, target)):
                continue  # not a project-root path (a generated or a system header)
            there = layer_of(target, layers)
            if there is None:
                violations.append(f'{rel}:{number}: includes "{target}", which is outside every layer '
                                  f'(the top); {here.name} may include only its own layer and what it uses')
                continue
            counts = edges.setdefault((here.name, there.name), [0, 0])
            counts[0 if rel.endswith('.h') else 1] += 1
            if there.name not in here.may_include():
                allowed = ', '.join(sorted(here.may_include()))
                violations.append(f'{rel}:{number}: includes "{target}" ({there.name}); {here.name} may '
                                  f'include only {allowed}')
            elif there.name in here.private_uses and rel.endswith('.h'):
                violations.append(f'{rel}:{number}: a header includes "{target}", but {here.name} uses '
                                  f'{there.name} as PRIVATE_USES (its sources only): make it USES')
    return violations, edges


def run(root):
    with open(os.path.join(root, 'CMakeLists.txt'), encoding='utf-8') as f:
        layers = read_layers(f.read())
    if not layers:
        return [f'{root}/CMakeLists.txt has no tlmgpu_layer_library() call'], {}, layers
    problems = check_table(layers)
    violations, edges = scan(root, layers)
    return problems + violations, edges, layers


def self_test():
    """The checker finds an upward include, a header using a PRIVATE_USES
    library, an undeclared model/ folder and a cycle in the table, and passes a
    clean tree."""
    cmake = '''
tlmgpu_layer_library(lib_core FOLDERS core)
tlmgpu_layer_library(lib_mem FOLDERS memory USES lib_core)
tlmgpu_layer_library(lib_top FOLDERS platform model/sm USES lib_mem PRIVATE_USES lib_core)
'''
    def tree(files, cmake_text=cmake):
        d = tempfile.mkdtemp(prefix='check_layers_')
        for rel, text in dict(files, **{'CMakeLists.txt': cmake_text}).items():
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), 'w', encoding='utf-8') as f:
                f.write(text)
        return d
    clean = {'core/a.h': '#pragma once\n', 'memory/m.h': '#include "core/a.h"\n',
             'platform/p.h': '#include "memory/m.h"\n', 'platform/p.cpp': '#include "core/a.h"\n',
             'model/sm/s.cpp': '#include "platform/p.h"\n#include <vector>\n#include "generated.h"\n',
             'tests/t.cpp': '#include "platform/p.h"\n'}
    cases = [
        ('clean tree', clean, cmake, None),
        ('upward include', dict(clean, **{'memory/m.cpp': '#include "memory/m.h"\n#include "platform/p.h"\n'}),
         cmake, 'memory/m.cpp:2: includes "platform/p.h" (lib_top)'),
        ('include of the top', dict(clean, **{'core/b.h': '#include "tests/t.cpp"\n'}),
         cmake, 'core/b.h:1: includes "tests/t.cpp", which is outside every layer'),
        ('header of a PRIVATE_USES library', dict(clean, **{'platform/q.h': '#include "core/a.h"\n'}),
         cmake, 'platform/q.h:1: a header includes "core/a.h"'),
        ('undeclared model/ folder', dict(clean, **{'model/new/n.h': '#pragma once\n'}),
         cmake, 'model/new belongs to no layer'),
        ('cycle in the table', clean, cmake.replace('FOLDERS core)', 'FOLDERS core USES lib_mem)'),
         'lib_core uses lib_mem, declared after it'),
    ]
    failed = 0
    for title, files, cmake_text, expected in cases:
        problems, _, _ = run(tree(files, cmake_text))
        ok = (not problems) if expected is None else any(expected in p for p in problems)
        print(f'{"ok  " if ok else "FAIL"} {title}' + ('' if ok else f': got {problems}'))
        failed += not ok
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    parser.add_argument('--graph', action='store_true', help='print the include graph between layers')
    parser.add_argument('--self-test', action='store_true', help='check the checker on made-up trees')
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    problems, edges, layers = run(os.path.abspath(args.root))
    if args.graph:
        print('layer -> layer: includes from headers / from sources')
        order = {l.name: i for i, l in enumerate(layers)}
        for (a, b), (h, s) in sorted(edges.items(), key=lambda e: (order[e[0][0]], order[e[0][1]])):
            if a != b:
                print(f'  {a} -> {b}: {h} / {s}')
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f'{len(problems)} layering problem(s): a library includes only its own layer and the libraries '
              'its tlmgpu_layer_library() call in CMakeLists.txt uses (docs/ARCHITECTURE.md, "Layers")',
              file=sys.stderr)
        return 1
    if not args.graph:
        print(f'{len(layers)} layers, no upward include')
    return 0


if __name__ == '__main__':
    sys.exit(main())
