#!/usr/bin/env python3
"""Installs srv6d's Markdown docs (and the example configs) under the package's doc directory
as Debian does: files over 4 kB gzip -9n compressed, the copyright file as is. A link to a file
that is not installed with them (a test, the source tree's BENCHMARKS.md) becomes plain text
naming the file in srv6d's source tree, so every link of an installed doc resolves (to the file,
or its .gz). usage: install_docs.py SRC_ROOT DOC_DIR FILE...  (FILEs relative to SRC_ROOT)"""
import gzip
import os
import re
import sys

src, dest, files = sys.argv[1], sys.argv[2], sys.argv[3:]
installed = set(files)
link = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")


def rewrite(rel, text):
    here = os.path.dirname(rel)

    def one(m):
        label, target = m.group(1), m.group(2)
        path = target.split("#", 1)[0]
        if not path or re.match(r"^[a-z]+:", target):
            return m.group(0)
        if os.path.normpath(os.path.join(here, path)) in installed:
            return m.group(0)
        return f"{label} (`{os.path.normpath(os.path.join(here, path))}` in srv6d's source tree)"

    return link.sub(one, text)


for rel in files:
    data = open(os.path.join(src, rel), "rb").read()
    if rel.endswith(".md"):
        data = rewrite(rel, data.decode("utf-8")).encode("utf-8")
    out = os.path.join(dest, rel)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    for old in (out, out + ".gz"):
        if os.path.exists(old):
            os.remove(old)
    if len(data) > 4096 and os.path.basename(rel) != "copyright":
        with open(out + ".gz", "wb") as raw:
            with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as gz:
                gz.write(data)
        os.chmod(out + ".gz", 0o644)
    else:
        with open(out, "wb") as f:
            f.write(data)
        os.chmod(out, 0o644)
