#!/usr/bin/env python3
"""Every link between the project's pages resolves (issue 49).

Two checks over the files of SRC that git tracks or would (git ls-files
with the untracked files it does not ignore; a walk of SRC without build*/,
out/ and hidden folders where there is no git):

1. Each relative link of a markdown page, `[text](path)`, `[text](#anchor)`,
   `[text](path#anchor)` or a reference definition `[id]: path`, names a
   file or folder that exists, and an anchor names a heading of the target
   page (GitHub's slugs: lower case, punctuation dropped, spaces to hyphens,
   -1, -2 ... for repeats) or an `<a id=...>`/`<a name=...>` in it. Links
   inside code (fenced blocks, `spans`) and links with a scheme (https:,
   mailto:) are not links between pages and are left alone.
2. Each repository path of a markdown page mentioned by name (a word such
   as docs/spec.md or harness/README.md: a folder part and `.md`, outside a
   markdown link) in a page, a source file, a script or a build file
   exists, from the top of the tree: the project cites its pages so in
   comments, help texts and messages, and a page that moves must take them
   along.

Exit 1 naming each file, line and target that does not resolve; 0 with a
count. usage: docs_links.py SRC
"""
import os
import re
import subprocess
import sys
import unicodedata

TEXT_EXTS = (".md", ".c", ".h", ".cpp", ".hpp", ".cu", ".cuh", ".def", ".sh",
             ".py", ".cmake", ".txt", ".yml", ".yaml", ".in", ".sql")
TEXT_NAMES = ("Makefile", "CMakeLists.txt", "run")

LINK = re.compile(r"(?<!\!)\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?"
                  r"(?:\s+\"[^\"]*\")?\s*\)")
IMAGE = re.compile(r"\!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"", re.I)
FENCE = re.compile(r"^\s{0,3}(```+|~~~+)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
MENTION = re.compile(r"(?<![\w/.$~-])((?:[\w.-]+/)+[\w.-]+\.md)(?![\w/-])")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def tracked(src):
    try:
        # tracked files, and new ones git does not ignore (a page being
        # added is checked before its commit)
        out = subprocess.run(["git", "-C", src, "ls-files", "-z", "--cached",
                              "--others", "--exclude-standard"],
                             capture_output=True, check=True).stdout
        names = [n for n in out.decode().split("\0") if n]
        if names:
            return [n for n in names if os.path.isfile(os.path.join(src, n))]
    except (OSError, subprocess.CalledProcessError):
        pass
    names = []
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        dirs[:] = [d for d in dirs if not d.startswith(".") and
                   not (rel == "." and (d.startswith("build") or d == "out"))]
        names += [os.path.normpath(os.path.join(rel, f)) for f in files]
    return names


def prose_lines(text):
    """(line number, line) of a page outside fenced code blocks."""
    fence = None
    for no, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark[0] * 3
            elif mark.startswith(fence):
                fence = None
            continue
        if fence is None:
            yield no, line


def slug(title):
    """GitHub's anchor of a heading."""
    title = re.sub(r"<[^>]+>", "", title)  # inline HTML
    title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)  # links: their text
    out = []
    for ch in title.lower():
        cat = unicodedata.category(ch)
        if ch in " -_" or cat[0] in "LN" or cat == "Mn":
            out.append("-" if ch == " " else ch)
    return "".join(out)


def anchors(path, cache={}):
    if path not in cache:
        found, seen = set(), {}
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for _, line in prose_lines(text):
            for a in HTML_ANCHOR.findall(line):
                found.add(a)
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else "%s-%d" % (base, n))
        cache[path] = found
    return cache[path]


def check_link(src, page, target):
    """An error message, or None when target resolves from page."""
    if SCHEME.match(target) or target.startswith("//"):
        return None
    path, _, anchor = target.partition("#")
    if path:
        full = os.path.normpath(os.path.join(os.path.dirname(page), path))
        if path.startswith("/"):
            full = os.path.normpath(os.path.join(src, path.lstrip("/")))
        if not os.path.exists(full):
            return "no such file: %s" % path
    else:
        full = page
    if anchor and full.endswith(".md") and os.path.isfile(full):
        if anchor not in anchors(full):
            return "no heading #%s in %s" % (anchor,
                                             os.path.relpath(full, src))
    return None


def main(src):
    src = os.path.abspath(src)
    bad, links, mentions = [], 0, 0
    for rel in sorted(tracked(src)):
        base = os.path.basename(rel)
        if not (rel.endswith(TEXT_EXTS) or base in TEXT_NAMES):
            continue
        full = os.path.join(src, rel)
        try:
            with open(full, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        if rel.endswith(".md"):
            for no, line in prose_lines(text):
                plain = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
                targets = LINK.findall(plain) + IMAGE.findall(plain)
                m = REFDEF.match(plain)
                if m:
                    targets.append(m.group(1))
                for t in targets:
                    links += 1
                    err = check_link(src, full, t)
                    if err:
                        bad.append("%s:%d: link (%s): %s" % (rel, no, t, err))
        for no, line in enumerate(text.split("\n"), 1):
            if rel.endswith(".md"):  # a link's text and target: check 1's
                line = IMAGE.sub(" ", LINK.sub(" ", line))
            for m in MENTION.finditer(line):
                name = m.group(1)
                if name.startswith(("./", "../")) or "/tmp/" in "/" + name:
                    continue
                mentions += 1
                if not os.path.exists(os.path.join(src, name)):
                    bad.append("%s:%d: mentions %s, which does not exist"
                               % (rel, no, name))
    for b in bad:
        print(b)
    if bad:
        print("%d of %d links and %d mentions of pages do not resolve"
              % (len(bad), links, mentions))
        return 1
    print("%d links and %d mentions of pages, all resolve" % (links, mentions))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
