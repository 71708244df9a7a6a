// mailbox.h -- abmon's entry in PVM's mailbox, by which tasks find it.
#ifndef XAB_ABMON_MAILBOX_H
#define XAB_ABMON_MAILBOX_H

#include <xab/wire.h>

#include <string>

namespace xab::abmon {

struct MailboxEntry {  // what wire.h says the entry holds, in order
  int tid;
  int context;
  int tag;
  int batch;
  int flushMs;
  int pokeMs;  // 0: abmon does not poke (tasks send before they block)
  std::string socketName;  // the local socket's abstract name; empty: none
  int control = 0;         // 1: control mode, tasks step
  std::string controlPath;  // abmon's control socket (a relay's: empty)
};

struct Registration {
  enum Status { Ok, Busy, Failed } status = Failed;
  int index = 0;       // Ok: the entry's index, for pvm_delinfo
  int owner = 0;       // Busy: the live abmon's tid
  std::string error;   // Failed: what went wrong
};

// Puts the entry under XAB_MBOX_NAME.  An entry left by an abmon that is
// no longer running is removed (pvmd drops it itself once it has noticed
// the exit, so this waits a little for that); a live one makes it Busy.
// `name`: XAB_MBOX_NAME for abmon, relayMailboxName() for a relay.
Registration registerAbmon(const MailboxEntry& entry, const std::string& name = XAB_MBOX_NAME);
void unregisterAbmon(int index, const std::string& name = XAB_MBOX_NAME);
// A relay's entry on the host whose pvmd is `hostTid` (wire.h).
std::string relayMailboxName(int hostTid);

// "PvmSysErr (-14)": a PVM error code for a message.
std::string pvmErrorName(int code);

}  // namespace xab::abmon

#endif
