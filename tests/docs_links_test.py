#!/usr/bin/env python3
"""Every link of the repository's Markdown files resolves inside the repository: [text](path)
links to files and their #anchors' files, and bare mentions of files that live only outside it
(the research notes the docs were written from). Web links (http[s]://) are not fetched."""
import os
import re
import sys

root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
skip_dirs = {".git", "build", "build-san", ".cache"}
# Files the docs once pointed to that are not part of the repository: facts from them are
# carried into the docs, never a link or a path.
outside = re.compile(r"(fpm-protocol\.md|env-probe\.md|anchors\.md|style-anchors\.md|shared/research|research/vm-lab|research: vm-lab|/work/shared)")
link = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
bad = []
for d, dirs, files in os.walk(root):
    dirs[:] = [x for x in dirs if x not in skip_dirs and not x.startswith("build")]
    for f in files:
        if not (f.endswith(".md") or f.endswith(".conf")):
            continue
        path = os.path.join(d, f)
        rel = os.path.relpath(path, root)
        text = open(path, encoding="utf-8").read()
        for n, line in enumerate(text.splitlines(), 1):
            if outside.search(line):
                bad.append(f"{rel}:{n}: names a file outside the repository: {line.strip()}")
            if not f.endswith(".md"):
                continue
            for target in link.findall(line):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue
                target = target.split("#", 1)[0]
                if not os.path.exists(os.path.normpath(os.path.join(d, target))):
                    bad.append(f"{rel}:{n}: link to {target}, which is not in the repository")
for b in bad:
    print("FAIL " + b)
print(f"{len(bad)} problem(s)")
sys.exit(1 if bad else 0)
