#!/usr/bin/env python3
"""lint_batches.py -- scripts/lint.sh's worker: clang-tidy on the given
sources a batch at a time.

  lint_batches.py COMPILE_COMMANDS ROOT WORKDIR JOBS BATCH FILE...

The sources of one target (the same compile command but for the source)
are linted BATCH at a time as one translation unit that #includes them, so
the headers they share (Qt's, Asio's, spdlog's, the model's) are parsed
once a batch instead of once a source; the header filter names the parts'
directories, so a diagnostic in an included source or header is reported
at its own file and line.  A batch that does not compile as one unit (two
sources define the same name in an anonymous namespace, as in
cmake/XabUnity.cmake) is linted again without the sources its errors are
in, and those alone.  Prints clang-tidy's diagnostic lines, sorted, each once.
"""
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys

PARTS = "abmon|model|replay|traceformat|translators|tools|xabview"
NAMING = "[readability-identifier-naming"


def main():
    db_path, root, work, jobs, batch = sys.argv[1:6]
    files = [os.path.realpath(os.path.join(root, f)) for f in sys.argv[6:]]
    root = os.path.realpath(root)
    header_filter = f"^{re.escape(root)}/({PARTS})/"
    # A batch lives outside the tree: the style is named, not looked for.
    config = f"--config-file={root}/.clang-tidy"
    # The build's commands without its precompiled headers
    # (cmake/XabPch.cmake): gcc's .gch is no precompiled header to clang,
    # and what a source uses it includes itself.
    commands = sources_of_batches(json.load(open(db_path)))
    for c in commands:
        c["command"] = re.sub(r" -Winvalid-pch| -include \S*cmake_pch\.hxx| -Wno-subobject-linkage", "", c["command"])
    json.dump(commands, open(os.path.join(work, "compile_commands.json"), "w"))
    by_file = {os.path.realpath(os.path.join(c["directory"], c["file"])): c for c in commands}

    # Sources with the same flags (one target's) in one group, in order.
    groups = {}
    for f in files:
        c = by_file.get(f)
        key = ("", f) if c is None else (c["directory"], " ".join(flags(c["command"])))
        groups.setdefault(key, []).append(f)
    batches = []
    for (directory, _), members in groups.items():
        size = max(1, int(batch))
        for i in range(0, len(members), size):
            batches.append((directory, members[i : i + size]))
    batches.sort(key=lambda b: -len(b[1]))  # the longest first: no core idles at the end

    counter = iter(range(1 << 30))

    def tidy(directory, members):
        if len(members) == 1:  # through the compilation database, as a developer runs it
            args = ["clang-tidy", "-p", work, config, "--quiet", f"--header-filter={header_filter}", members[0]]
            return diagnostics(run(args, root))
        unity = os.path.join(work, f"batch{next(counter)}.cpp")
        with open(unity, "w") as out:
            out.writelines(f'#include "{m}"\n' for m in members)
        command = flags(by_file[members[0]]["command"])
        args = ["clang-tidy", config, "--quiet", f"--header-filter={header_filter}", unity, "--"] + command
        found = diagnostics(run(args, directory))
        errors = [line for line in found if NAMING not in line and "error:" in line]
        if not errors:
            return found
        # It does not compile as one unit: the sources the errors are in
        # (those that meet a name an earlier one defined) alone, the rest
        # again; errors elsewhere (in a header): in halves.
        alone = [m for m in members if any(line.startswith(m + ":") for line in errors)]
        if not alone:
            half = len(members) // 2
            return tidy(directory, members[:half]) | tidy(directory, members[half:])
        result = tidy(directory, [m for m in members if m not in alone])
        for m in alone:
            result |= tidy(directory, [m])
        return result

    found = set()
    with concurrent.futures.ThreadPoolExecutor(max(1, int(jobs))) as pool:
        for result in pool.map(lambda b: tidy(*b), batches):
            found |= result
    for line in sorted(found):
        print(line)


def sources_of_batches(commands):
    """A unity build (cmake/XabUnity.cmake) compiles CMake's
    Unity/unity_N_cxx.cxx files, each #including some sources: every such
    source gets its batch's command, with the source in the batch's place."""
    result = []
    for c in commands:
        path = os.path.join(c["directory"], c["file"])
        if not re.search(r"/Unity/unity_\d+_cxx\.cxx$", path):
            result.append(c)
            continue
        with open(path) as text:
            sources = re.findall(r'^#include "(.+\.cpp)"$', text.read(), re.M)
        for source in sources:
            command = c["command"].replace(c["file"], source)
            command = re.sub(r"/Unity/unity_\d+_cxx\.cxx\.o", "/" + os.path.basename(source) + ".o", command)
            result.append({"directory": c["directory"], "command": command, "file": source})
    return result


def flags(command):
    """The compile command's arguments without the compiler, the source and
    the outputs: what the sources of one target share."""
    args = shlex.split(command)[1:]
    kept, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in ("-o", "-c", "-MF", "-MT", "-MQ"):
            skip = True
        elif a not in ("-MD", "-MMD"):
            kept.append(a)
    return kept


def run(args, cwd):
    return subprocess.run(args, cwd=cwd or None, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout


def diagnostics(text):
    return {line for line in text.splitlines() if "warning:" in line or "error:" in line}


if __name__ == "__main__":
    main()
