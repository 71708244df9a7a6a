#!/usr/bin/env python3
"""Forged clock pings on abmon's relays' port (skew_test.sh; relay_stream.h).

   stream_client.py HOST PORT RELAY_TID TOKEN

Each case opens a stream, says a hello, writes a ping frame and reads what
abmon writes back until it closes the stream (10 s at most): nothing, for
  wrong-token  a hello with another token;
  second       the relay's own tid and token while the relay has its stream;
  oversized    a stranger's hello (token 0) and a ping announcing 64 MiB.
Prints one line per case: its name and the bytes abmon wrote; exit 1 when
any case got a byte or was not closed."""
import socket
import struct
import sys
import time

host, port, tid, token = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 16), int(sys.argv[4], 16)
PING = 4


def frame(k, t1, ntids=0, textlen=0):
    return struct.pack('!7I', PING, t1 >> 32, t1 & 0xffffffff, k, ntids, 0, textlen)


def case(name, hello_tid, hello_token, ping):
    s = socket.create_connection((host, port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.sendall(struct.pack('!III', hello_tid, hello_token >> 32, hello_token & 0xffffffff))
    got, closed = b'', False
    try:
        s.sendall(ping)
        until = time.monotonic() + 10
        while time.monotonic() < until:
            data = s.recv(4096)
            if not data:
                closed = True
                break
            got += data
    except (ConnectionResetError, BrokenPipeError):
        closed = True
    except socket.timeout:
        pass
    s.close()
    print(name, len(got), 'closed' if closed else 'open')
    return not got and closed


ok = case('wrong-token', tid, token ^ 1, frame(1, time.time_ns()))
ok &= case('second', tid, token, frame(2, time.time_ns()))
ok &= case('oversized', tid, 0, frame(3, time.time_ns(), textlen=64 << 20))
sys.exit(0 if ok else 1)
