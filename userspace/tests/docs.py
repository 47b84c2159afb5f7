#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
The documentation against mmbctl, without a kernel: every mmbctl command
line in README.md and docs/*.md parses, and every link from one of them to
a file of the repository, or to a #heading, resolves. Prints TAP.

Command lines are taken from fenced code blocks of the shell (sh, bash,
console: a line that starts with "mmbctl" or "ip netns exec NS mmbctl";
in any block, one after a "$ " prompt), the words read as a shell reads
them, up to a comment, a pipe or a redirection; and from inline code in
the text that gives a rule, a setting or a packet to trace ("mmbctl add
...", set, trace) with no placeholder (an upper-case word such as IFACE). Each runs as
"mmbctl --dry-run WORDS": parsed and built into its requests, nothing
sent; one shown with its "Error:" line after it must fail with that
error (unless it parses: then the error is the kernel's). An import
FILE that is not in the repository is one of the import tests'
rulesets; a -f or -b FILE whose file is not in the repository is read
as an empty one (its options are checked).

usage: tests/docs.py PATH_TO_MMBCTL REPO_ROOT
"""
import glob
import os
import re
import shlex
import subprocess
import sys

PLACEHOLDER = re.compile(r'(?<![\w-])[A-Z][A-Z0-9_]*(?![\w-])')
STOP = {'|', '>', '>>', '<', ';', '&&', '||', '&', '2>&1', '2>', ')', '}'}


def slug(heading):
    """GitHub's anchor of a heading."""
    s = heading.strip().lower()
    s = re.sub(r'[`*_~]', '', s)
    s = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', s)
    s = re.sub(r'[^\w\- ]', '', s)
    return s.replace(' ', '-')


def anchors(path):
    found, seen = set(), {}
    in_code = False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('```'):
                in_code = not in_code
                continue
            m = None if in_code else re.match(r'#{1,6} (.*)', line)
            if m:
                a = slug(m.group(1))
                n = seen.get(a, 0)
                seen[a] = n + 1
                found.add(a if n == 0 else f'{a}-{n}')
            for a in re.findall(r'<a (?:name|id)="([^"]+)"', line):
                found.add(a)
    return found


def words_of(line):
    """A shell line's words up to what mmbctl does not see: an unquoted
    comment, pipe, redirection, ; or &, or the end of a group."""
    quote, end = None, len(line)
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in '\'"':
            quote = c
        elif c in '|<>;&)}' or (c == '#' and (i == 0 or line[i - 1] in ' \t')):
            end = i
            break
    try:
        return shlex.split(line[:end])
    except ValueError:
        return None


def commands(path):
    """(line number, words after mmbctl) of each command line in @path."""
    found, fence = [], None
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    for no, line in enumerate(lines, 1):
        if line.lstrip().startswith('```'):
            fence = None if fence is not None else line.strip()[3:].strip()
            continue
        if fence is not None:
            s = line.strip()
            prompt = s.startswith('$ ')
            if not prompt and fence not in ('sh', 'bash', 'shell', 'console'):
                continue  # a grammar, a file's text, output
            s = re.sub(r'^\$ ', '', s)
            s = re.sub(r'^ip netns exec \S+ ', '', s)
            s = re.sub(r'^(sudo|exec) ', '', s)
            if s.startswith('mmbctl ') or s == 'mmbctl':
                w = words_of(s)
                # "$ mmbctl ..." then "Error: ...": an error shown; it must be that one.
                nxt = lines[no].strip() if no < len(lines) else ''
                err = nxt if prompt and nxt.startswith('Error:') else None
                found.append((no, w[1:] if w else None, s, err))
            continue
        for code in re.findall(r'`(mmbctl [^`]*)`', line):
            # A rule or packet in the text, without placeholders.
            if PLACEHOLDER.search(code) or '...' in code or \
                    not re.match(r'mmbctl (-\S+ )*(add|add-stateful|trace|set) ', code):
                continue
            w = words_of(code)
            found.append((no, w[1:] if w else None, code, None))
    return found


def main():
    mmbctl, root = sys.argv[1], sys.argv[2]
    docs = [os.path.join(root, 'README.md')] + sorted(glob.glob(os.path.join(root, 'docs', '*.md')))
    n = failed = 0

    def result(ok, desc, diag=''):
        nonlocal n, failed
        n += 1
        if not ok:
            failed += 1
        print(f'{"ok" if ok else "not ok"} {n} - docs: {desc}')
        if not ok and diag:
            for d in diag.rstrip().split('\n')[:30]:
                print(f'#   {d}')

    for doc in docs:
        rel = os.path.relpath(doc, root)
        bad, count = [], 0
        for no, words, text, err in commands(doc):
            count += 1
            if words is None:
                bad.append(f'{rel}:{no}: the shell cannot read: {text}')
                continue
            for opt in ('-f', '-b'):
                if opt in words:
                    i = words.index(opt)
                    if i + 1 < len(words) and words[i + 1] != '-' and \
                            not os.path.exists(os.path.join(root, words[i + 1])):
                        words = words[:i + 1] + ['/dev/null'] + words[i + 2:]
            # import FILE: a ruleset of the import tests' for a file not here.
            if 'import' in words:
                i = len(words) - 1
                if words[i] != '-' and not words[i].startswith('-') and i > words.index('import') \
                        and not os.path.exists(os.path.join(root, words[i])):
                    words = words[:i] + [os.path.join(root, 'userspace/tests/import/netdev.json')]
            if not words:
                continue
            r = subprocess.run([mmbctl, '--dry-run'] + words, stdin=subprocess.DEVNULL,
                               capture_output=True, text=True)
            if err:
                # Parsed: the error is the kernel's, which --dry-run cannot show.
                if r.returncode != 0 and r.stderr.split('\n')[0] != err:
                    bad.append(f'{rel}:{no}: {text}: wanted "{err}", got:\n{r.stderr}')
            elif r.returncode != 0:
                bad.append(f'{rel}:{no}: {text}\n{r.stderr}')
        result(not bad, f'{rel}: its {count} mmbctl command lines parse', '\n'.join(bad))

        missing = []
        with open(doc, encoding='utf-8') as f:
            text = f.read()
        text = re.sub(r'```.*?```', '', text, flags=re.S)
        for target in re.findall(r'\]\(([^)\s]+)\)', text):
            if re.match(r'[a-z]+:', target):
                continue  # http:, mailto:
            path, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            if not os.path.exists(dest):
                missing.append(f'{rel}: {target}: no such file')
            elif anchor and dest.endswith('.md') and anchor not in anchors(dest):
                missing.append(f'{rel}: {target}: no such heading')
        result(not missing, f'{rel}: its links resolve', '\n'.join(missing))
    # The checker itself: a page with a bad rule and a broken link fails.
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        if os.environ.get('DOCS_SELFTEST'):
            print(f'1..{n}')
            return 1 if failed else 0
        os.mkdir(os.path.join(d, 'docs'))
        with open(os.path.join(d, 'README.md'), 'w', encoding='utf-8') as f:
            f.write('# Top\n\n```sh\nmmbctl add ip-ttl \'<\' 10 drop  # fine\n'
                    'mmbctl add tcp-dport 80 acept | cat\n```\n\n'
                    'Text `mmbctl add ip-ttl 999 drop`, [a](docs/none.md), [b](#top), [c](#nowhere).\n')
        r = subprocess.run([sys.executable, __file__, mmbctl, d], capture_output=True, text=True,
                           env=dict(os.environ, DOCS_SELFTEST='1'))
        out = r.stdout
        result(r.returncode != 0 and 'README.md:5: mmbctl add tcp-dport 80 acept' in out and
               'README.md:8: mmbctl add ip-ttl 999 drop' in out and 'fine' not in out and
               'docs/none.md: no such file' in out and '#nowhere: no such heading' in out and
               '#top:' not in out, 'the checker finds a bad command line and broken links', out)
    print(f'1..{n}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
