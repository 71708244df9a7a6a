#!/usr/bin/env python3
"""A client of abmon's control socket (docs/abmon.md "Control mode") for the
multihost stepping test: steps every held task, one call at a time, until
abmon closes the socket.  Raw socket, its own line buffer (no text wrapper):
prints "connected" once greeted, then, at the end, one line per task:
"TID N" (the calls it stepped)."""
import socket
import sys
import time


def main(path):
    deadline = time.time() + 20
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            break
        except OSError:
            s.close()
            if time.time() > deadline:
                print("cannot connect to", path)
                return 1
            time.sleep(0.1)
    buf = b""
    steps = {}
    greeted = False
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for line in lines:
            words = line.decode().split()
            if not greeted:
                if words != ["xab-control", "1"]:
                    print("bad greeting:", line)
                    return 1
                greeted = True
                print("connected", flush=True)
            elif words[:2] == ["event", "wait"]:
                steps[words[2]] = steps.get(words[2], 0) + 1
                s.sendall(b"step " + words[2].encode() + b"\n")
            elif words and words[0] == "error":
                print("abmon said:", line.decode())
                return 1
    for tid, n in sorted(steps.items()):
        print(tid, n)
    return 0


sys.exit(main(sys.argv[1]))
