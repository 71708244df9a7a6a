#!/usr/bin/env python3
"""A client of abmon's control socket (docs/abmon.md "Control mode") for the
multihost stepping tests.  Raw socket, its own line buffer (no text wrapper).

step_client.py SOCKET: steps every held task, one call at a time, until
abmon closes the socket; prints "connected" once greeted, then, at the end,
one line per task: "TID N" (the calls it stepped).

step_client.py SOCKET --hold-host N: a host that goes while its tasks are
held.  Steps only the first task that asks (the command)
and holds every other: prints "held TID" for each task of host N (PVM's
number of the host, bits 18..29 of the tid: a host added again gets a new
one) as it asks.  Once
abmon says a held task has gone ("event gone ..."), printed as "gone
REST-OF-LINE", it lets every other held task go and steps every call from
then on, printing "after TID" for each; at the end the same "TID N" lines.

A step that crosses the task's going (the test kills the program at the
end) is answered "error TID is not waiting" after "event gone TID": not
counted, and not an error of abmon's.
"""
import socket
import sys
import time


def host_of(tid):
    return int(tid.lstrip("t"), 16) >> 18 & 0xFFF


def connect(path):
    deadline = time.time() + 20
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.time() > deadline:
                return None
            time.sleep(0.1)


def main(path, hold_host):
    s = connect(path)
    if s is None:
        print("cannot connect to", path)
        return 1
    buf = b""
    steps = {}
    greeted = False
    first = None      # the command: stepped always
    deferred = []     # tasks held until a held task's host has gone
    gone = set()      # tasks abmon said have gone
    released = hold_host is None

    def step(tid):
        steps[tid] = steps.get(tid, 0) + 1
        s.sendall(b"step " + tid.encode() + b"\n")

    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for line in lines:
            text = line.decode()
            words = text.split()
            if not greeted:
                if words != ["xab-control", "1"]:
                    print("bad greeting:", text)
                    return 1
                greeted = True
                print("connected", flush=True)
            elif words[:2] == ["event", "wait"]:
                tid = words[2]
                first = first or tid
                if released:
                    if hold_host is not None:
                        print("after", tid, flush=True)
                    step(tid)
                elif host_of(tid) == hold_host:
                    print("held", tid, flush=True)
                elif tid == first:
                    step(tid)
                else:
                    deferred.append(tid)
            elif words[:2] == ["event", "gone"]:
                gone.add(words[2])
                if hold_host is not None:
                    print("gone", " ".join(words[2:]), flush=True)
                if not released and hold_host is not None:
                    released = True
                    for tid in deferred:
                        print("after", tid, flush=True)
                        step(tid)
            elif len(words) == 5 and words[0] == "error" and words[1] in gone and words[2:] == ["is", "not", "waiting"]:
                # A step sent as the task went (killed at the end): abmon
                # said it had gone before it read the step.
                steps[words[1]] -= 1
            elif words and words[0] == "error":
                print("abmon said:", text)
                return 1
    for tid, n in sorted(steps.items()):
        print(tid, n)
    return 0


hold = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--hold-host" else None
sys.exit(main(sys.argv[1], hold))
