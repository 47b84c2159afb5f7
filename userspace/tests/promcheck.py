#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
A strict reader of Prometheus' text exposition format (version 0.0.4), for
mmbctl -P: the rules promtool check metrics applies and the parser enforces.
Each metric family has one HELP and one TYPE line before its samples, and
its samples together; names and labels of the allowed characters; label
values quoted with \\, \" and \n escaped; a number for each value; no
series twice; counters named ..._total, gauges not; the text ends in a
newline. Prints TAP.

usage: tests/promcheck.py FILE...
"""
import re
import sys

NAME = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*$')
LABEL = re.compile(r'[a-zA-Z_][a-zA-Z0-9_]*$')
VALUE = re.compile(r'^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?Inf|NaN)$')


def parse_labels(s, where):
    """name="value",... -> tuple of pairs; raises on any malformation."""
    labels, i = [], 0
    while i < len(s):
        m = re.match(r'([a-zA-Z_][a-zA-Z0-9_]*)="', s[i:])
        if not m:
            raise ValueError(f'{where}: bad label at "{s[i:]}"')
        name, i, val = m.group(1), i + m.end(), ''
        while True:
            if i >= len(s):
                raise ValueError(f'{where}: label value not closed')
            c = s[i]
            if c == '\\':
                if i + 1 >= len(s) or s[i + 1] not in '\\"n':
                    raise ValueError(f'{where}: bad escape in a label value')
                val += {'\\': '\\', '"': '"', 'n': '\n'}[s[i + 1]]
                i += 2
            elif c == '"':
                i += 1
                break
            elif c == '\n':
                raise ValueError(f'{where}: newline in a label value')
            else:
                val += c
                i += 1
        if name.startswith('__'):
            raise ValueError(f'{where}: label {name} is reserved')
        if any(n == name for n, _ in labels):
            raise ValueError(f'{where}: label {name} twice')
        labels.append((name, val))
        if i < len(s):
            if s[i] != ',':
                raise ValueError(f'{where}: expected , after a label')
            i += 1
    return tuple(labels)


def check(text):
    """Problems found in @text, as strings; also the number of samples."""
    errors, samples = [], 0
    if text and not text.endswith('\n'):
        errors.append('the text does not end in a newline')
    help_, type_, done, current, series = {}, {}, set(), None, set()
    for no, line in enumerate(text.split('\n')[:-1], 1):
        where = f'line {no}'
        if not line.strip():
            errors.append(f'{where}: an empty line')
            continue
        if line.startswith('#'):
            m = re.match(r'# (HELP|TYPE) (\S+) ?(.*)$', line)
            if not m:
                continue  # a comment
            kind, name, rest = m.groups()
            if not NAME.match(name):
                errors.append(f'{where}: bad metric name {name}')
            table = help_ if kind == 'HELP' else type_
            if name in table:
                errors.append(f'{where}: second {kind} line for {name}')
            if name in done or (current and current != name and name in help_ and
                                name in type_):
                errors.append(f'{where}: {kind} of {name} after its samples')
            if kind == 'TYPE':
                if rest not in ('counter', 'gauge', 'histogram', 'summary', 'untyped'):
                    errors.append(f'{where}: unknown type {rest}')
                if rest == 'counter' and not name.endswith('_total'):
                    errors.append(f'{where}: counter {name} not named ..._total')
                if rest != 'counter' and name.endswith('_total'):
                    errors.append(f'{where}: {rest} {name} named ..._total')
            elif not rest:
                errors.append(f'{where}: HELP of {name} is empty')
            elif re.search(r'\\[^\\n]', rest):
                errors.append(f'{where}: bad escape in HELP')
            table[name] = rest
            if current and current != name:
                done.add(current)
            current = name
            continue
        m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$', line)
        if not m:
            errors.append(f'{where}: not a sample: {line}')
            continue
        name, labels, value, _ = m.groups()
        try:
            lab = parse_labels(labels or '', where)
        except ValueError as e:
            errors.append(str(e))
            continue
        if not VALUE.match(value):
            errors.append(f'{where}: {value} is not a number')
        if name != current:
            if name in done:
                errors.append(f'{where}: samples of {name} are not together')
            if current:
                done.add(current)
            current = name
        if name not in type_ or name not in help_:
            errors.append(f'{where}: {name} has no HELP and TYPE before its samples')
        key = (name, tuple(sorted(lab)))
        if key in series:
            errors.append(f'{where}: series {name}{{{labels or ""}}} twice')
        series.add(key)
        samples += 1
    return errors, samples


def main():
    n = failed = 0
    for path in sys.argv[1:]:
        with open(path, encoding='utf-8') as f:
            errors, samples = check(f.read())
        n += 1
        if errors or not samples:
            failed += 1
            print(f'not ok {n} - promcheck: {path} in the exposition format')
            for e in errors[:20] or ['no sample']:
                print(f'#   {e}')
        else:
            print(f'ok {n} - promcheck: {path} in the exposition format ({samples} samples)')
    # The reader itself: texts it must refuse.
    bad = {
        'a counter not named _total': '# HELP a_b x\n# TYPE a_b counter\na_b 1\n',
        'samples apart': '# HELP a_total x\n# TYPE a_total counter\na_total{l="1"} 1\n'
                         '# HELP b x\n# TYPE b gauge\nb 1\na_total{l="2"} 2\n',
        'a series twice': '# HELP a x\n# TYPE a gauge\na{l="1"} 1\na{l="1"} 2\n',
        'a bad escape': '# HELP a x\n# TYPE a gauge\na{l="\\x"} 1\n',
        'no TYPE': 'a 1\n',
        'not a number': '# HELP a x\n# TYPE a gauge\na one\n',
        'no final newline': '# HELP a x\n# TYPE a gauge\na 1',
    }
    for what, text in bad.items():
        n += 1
        if check(text)[0]:
            print(f'ok {n} - promcheck: refuses {what}')
        else:
            failed += 1
            print(f'not ok {n} - promcheck: refuses {what}')
    print(f'1..{n}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
