// ready.h -- `abmon --ready-fd N`: a script that starts abmon in the
// background learns when a program it starts will be traced, as Xvfb's
// -displayfd tells when the display is up.
#ifndef XAB_ABMON_READY_H
#define XAB_ABMON_READY_H

#include <string>

namespace xab::abmon {

// At startup: descriptor `fd` is open (else false, `error` says so); it is
// closed on exec, so neither the program abmon starts nor anything else
// keeps it.
bool claimReadyFd(int fd, std::string& error);

// Once registered (mailbox entry, relays, the trace's header): writes
// "abmon tTID ready\n" to `fd` and closes it.  An abmon that fails before
// closes it by exiting: the reader gets end-of-file with no line.
void announceReady(int fd, int tid);

}  // namespace xab::abmon

#endif
