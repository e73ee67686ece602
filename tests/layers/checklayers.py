#!/usr/bin/env python3
"""Checks the include arrows of docs/architecture.md "Layers" over src/ and plugins/.

The compiler already refuses a Kiln header of a target that is not linked (cmake/KilnLayers.cmake);
this check covers what it cannot see: system headers (widgets, SQLite, libcurl) and the rooms
inside one folder, and it names the rule a line breaks.

  checklayers.py ROOT QT_WIDGETS_INCLUDE_DIR          check the tree, exit 1 on a violation
  checklayers.py --self-test ROOT QT_WIDGETS_INCLUDE_DIR
                                                      plant one forbidden include per rule in
                                                      a copy of the tree; each must be caught
"""
import os
import re
import shutil
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_SUFFIXES = ('.h', '.hpp', '.cpp', '.cu', '.cuh')

# Which Kiln folders (below src/) a room may include: the table of docs/architecture.md.
# A room is the longest matching prefix of a file's path.
ALLOWED = {
    'src/core': ['core'],
    'src/languages': ['languages'],
    'src/tasks': ['core', 'tasks'],
    'src/store': ['core', 'store'],
    'src/sandbox': ['sandbox'],
    'src/strategy': ['core', 'strategy'],
    'src/verifier/screen': ['languages', 'core', 'tasks', 'verifier/screen'],
    'src/verifier/harness': ['languages', 'core', 'tasks', 'sandbox', 'verifier/screen', 'verifier/harness'],
    'src/verifier/cpu': ['core', 'tasks', 'sandbox', 'verifier/screen', 'verifier/harness',
                         'verifier/cpu'],
    'src/verifier/cuda': ['core', 'tasks', 'sandbox', 'verifier/screen', 'verifier/harness',
                          'verifier/cuda'],
    'src/verifier/torch': ['languages', 'core', 'tasks', 'sandbox', 'verifier/screen', 'verifier/harness',
                           'verifier/torch'],
    # Problem lint runs references through the harness and the PyTorch backend's processes.
    'src/verifier/lint': ['languages', 'core', 'tasks', 'sandbox', 'verifier/screen', 'verifier/harness',
                          'verifier/torch', 'verifier/lint'],
    'src/verifier': ['languages', 'core', 'tasks', 'sandbox', 'verifier'],
    'src/policies/offline': ['languages', 'core', 'tasks', 'policies'],
    'src/policies/command': ['core', 'tasks', 'policies'],
    'src/policies': ['languages', 'core', 'tasks', 'policies/'],
    'plugins/strategies': ['core', 'strategy'],
    'src/engine': ['languages', 'core', 'tasks', 'store', 'policies', 'verifier', 'strategy', 'engine'],
    'src/models': ['languages', 'core', 'tasks', 'store', 'policies', 'verifier', 'strategy', 'engine',
                   'models'],
    'src/app': ['languages', 'core', 'tasks', 'policies', 'verifier', 'strategy', 'engine', 'models', 'app'],
    'src/cli': ['languages', 'core', 'tasks', 'store', 'policies', 'verifier', 'strategy', 'engine', 'cli'],
}
KILN_FOLDERS = ('core/', 'languages/', 'tasks/', 'store/', 'sandbox/', 'strategy/', 'verifier/', 'policies/',
                'engine/', 'models/', 'app/', 'cli/')
# System headers that belong to one room only.
ONLY_IN = [
    (re.compile(r'^sqlite3\.h$'), ('src/store',), 'SQLite outside the store'),
    (re.compile(r'^curl/'), ('src/policies/',), 'libcurl outside the policies'),
]
ONLY_IN_APP = ('src/app',)


def room_of(path):
    best = None
    for room in ALLOWED:
        if path == room or path.startswith(room + '/'):
            if best is None or len(room) > len(best):
                best = room
    return best


def may_include(room, header):
    for allowed in ALLOWED[room]:
        if allowed.endswith('/'):
            # 'policies/': the folder's own files, not its subfolders (offline sits on top).
            if header.startswith(allowed) and '/' not in header[len(allowed):]:
                return True
        elif header == allowed or header.startswith(allowed + '/'):
            return True
    return False


def widget_headers(qt_widgets_dir):
    return set(os.listdir(qt_widgets_dir))


def violations(root, widgets):
    found = []
    for top in ('src', 'plugins'):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.relpath(os.path.join(folder, name), root)
                found += check_file(root, path, widgets)
    return found


def check_file(root, path, widgets):
    room = room_of(path)
    found = []
    with open(os.path.join(root, path), encoding='utf-8', errors='replace') as source:
        for number, line in enumerate(source, 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            quoted, header = match.group(1) == '"', match.group(2)
            where = f'{path}:{number}: {header}: '
            rule = broken_rule(room, path, quoted, header, widgets)
            if rule:
                found.append(where + rule)
    return found


def broken_rule(room, path, quoted, header, widgets):
    if '..' in header.split('/'):
        return 'a relative path out of its folder (write the path below src/)'
    first = header.split('/')[0]
    if first in ('QtWidgets', 'Qsci') or header in widgets or header == 'qcustomplot.h':
        if not path.startswith(ONLY_IN_APP):
            return 'a widget header below the app'
    for pattern, rooms, why in ONLY_IN:
        if pattern.search(header) and not path.startswith(rooms):
            return why
    if room and quoted and header.startswith(KILN_FOLDERS) and not may_include(room, header):
        backends = ('verifier/cpu', 'verifier/cuda', 'verifier/torch')
        if room.endswith(backends) and header.startswith(backends):
            return 'a backend including another backend'
        return f'{room} may not include it (docs/architecture.md, "Layers")'
    return None


PLANTS = [
    ('src/engine/searchengine.cpp', '#include <QWidget>', 'a widget header below the app'),
    ('src/models/runfollower.cpp', '#include <QtWidgets/QLabel>', 'a widget header below the app'),
    ('src/engine/searchengine.cpp', '#include <sqlite3.h>', 'SQLite outside the store'),
    ('src/engine/searchengine.cpp', '#include <curl/curl.h>', 'libcurl outside the policies'),
    ('src/verifier/cpu/cpuevaluation.cpp', '#include "verifier/cuda/cudaevaluation.h"',
     'a backend including another backend'),
    ('src/verifier/harness/timingloop.cpp', '#include "verifier/cpu/cpuevaluation.h"',
     'may not include it'),
    ('src/core/verdict.cpp', '#include "engine/searchengine.h"', 'may not include it'),
    ('src/store/runstore.cpp', '#include "../engine/runconfig.h"', 'a relative path'),
    ('plugins/strategies/beam/beamstrategy.cpp', '#include "engine/searchengine.h"',
     'may not include it'),
]


def self_test(root, widgets):
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, 'tree')
        for top in ('src', 'plugins'):
            shutil.copytree(os.path.join(root, top), os.path.join(copy, top))
        if violations(copy, widgets):
            print('FAIL: the unchanged copy has violations')
            return 1
        for path, line, expected in PLANTS:
            target = os.path.join(copy, path)
            original = open(target, encoding='utf-8').read()
            with open(target, 'a', encoding='utf-8') as source:
                source.write('\n' + line + '\n')
            found = violations(copy, widgets)
            caught = len(found) == 1 and path in found[0] and expected in found[0]
            print(('ok    ' if caught else 'FAIL  ') + f'{path}: {line} -> {found}')
            failures += not caught
            open(target, 'w', encoding='utf-8').write(original)
    return 1 if failures else 0


def main(argv):
    testing = argv[1:2] == ['--self-test']
    args = argv[2:] if testing else argv[1:]
    if len(args) != 2:
        print(__doc__)
        return 2
    root, qt_widgets_dir = args
    widgets = widget_headers(qt_widgets_dir)
    if testing:
        return self_test(root, widgets)
    found = violations(root, widgets)
    for line in found:
        print(line)
    print(f'{len(found)} forbidden include(s)' if found else 'layers: every include is allowed')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
