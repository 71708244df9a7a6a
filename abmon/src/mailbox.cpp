#include "mailbox.h"

#include <pvm3.h>
#include <spdlog/spdlog.h>
#include <xab/traceformat/schema.h>
#include <xab/wire.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace xab::abmon {
namespace {

constexpr int kStaleRetries = 50;  // x 100 ms: how long pvmd may take to drop a dead owner's entry
char* mboxName(const std::string& name) { return const_cast<char*>(name.c_str()); }

int buildEntry(const MailboxEntry& e) {
  int buf = pvm_mkbuf(PvmDataDefault);
  if (buf < 0) return buf;
  int old = pvm_setsbuf(buf);
  int values[] = {XAB_WIRE_VERSION, e.tid, e.context, e.tag, e.batch, e.flushMs, e.pokeMs};
  int rc = pvm_pkint(values, static_cast<int>(std::size(values)), 1);
  int nameLen = static_cast<int>(e.socketName.size());
  if (rc >= 0) rc = pvm_pkint(&nameLen, 1, 1);
  if (rc >= 0 && nameLen > 0) rc = pvm_pkbyte(const_cast<char*>(e.socketName.data()), nameLen, 1);
  int control = e.control;
  if (rc >= 0) rc = pvm_pkint(&control, 1, 1);
  int pathLen = static_cast<int>(e.controlPath.size());
  if (rc >= 0 && control) rc = pvm_pkint(&pathLen, 1, 1);
  if (rc >= 0 && control && pathLen > 0) rc = pvm_pkbyte(const_cast<char*>(e.controlPath.data()), pathLen, 1);
  pvm_setsbuf(old);
  if (rc < 0) {
    pvm_freebuf(buf);
    return rc;
  }
  return buf;
}

// The tid that owns the entry now (0: none, or it cannot be told).
int currentOwner(const std::string& name) {
  int nclasses = 0;
  pvmmboxinfo* classes = nullptr;
  if (pvm_getmboxinfo(mboxName(name), &nclasses, &classes) < 0) return 0;
  for (int i = 0; i < nclasses; ++i)
    if (std::string_view(classes[i].mi_name) == name && classes[i].mi_nentries > 0)
      return classes[i].mi_owners[0];
  return 0;
}

}  // namespace

// traceformat's table is pvm3.h's: checked here, where pvm3.h is at hand.
static_assert(xab::pvmErrorName(PvmBadParam) == "PvmBadParam" && xab::pvmErrorName(PvmNoData) == "PvmNoData" &&
              xab::pvmErrorName(PvmSysErr) == "PvmSysErr" && xab::pvmErrorName(PvmNoBuf) == "PvmNoBuf" &&
              xab::pvmErrorName(PvmNoSuchBuf) == "PvmNoSuchBuf" && xab::pvmErrorName(PvmNoParent) == "PvmNoParent" &&
              xab::pvmErrorName(PvmNoTask) == "PvmNoTask" && xab::pvmErrorName(PvmExists) == "PvmExists" &&
              xab::pvmErrorName(PvmIPLoopback) == "PvmIPLoopback");

std::string pvmErrorName(int code) {
  std::string_view name = xab::pvmErrorName(code);
  if (code < 0 && !name.empty()) return std::string(name) + " (" + std::to_string(code) + ")";
  return "PVM error " + std::to_string(code);
}

Registration registerAbmon(const MailboxEntry& entry, const std::string& name) {
  Registration reg;
  int buf = buildEntry(entry);
  if (buf < 0) {
    reg.error = "cannot build the mailbox message: " + pvmErrorName(buf);
    return reg;
  }
  for (int attempt = 0; attempt <= kStaleRetries; ++attempt) {
    int rc = pvm_putinfo(mboxName(name), buf, PvmMboxDefault);
    if (rc >= 0) {
      reg.status = Registration::Ok;
      reg.index = rc;
      break;
    }
    if (rc != PvmDenied && rc != PvmExists) {
      reg.error = "pvm_putinfo(\"" + name + "\"): " + pvmErrorName(rc);
      break;
    }
    int owner = currentOwner(name);
    if (owner > 0 && pvm_pstat(owner) == PvmOk) {
      reg.status = Registration::Busy;
      reg.owner = owner;
      break;
    }
    // The owner has gone: its entry goes with it (we put it without
    // PvmMboxPersistent), but pvmd may not have noticed yet.
    if (attempt == 0) spdlog::info("removing the mailbox entry of an abmon that has exited");
    pvm_delinfo(mboxName(name), 0, PvmMboxDefault);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (reg.status == Registration::Failed && reg.error.empty())
    reg.error = "the mailbox entry \"" + name + "\" of an exited abmon did not go away";
  pvm_freebuf(buf);
  return reg;
}

std::string relayMailboxName(int hostTid) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "%x", static_cast<unsigned>(hostTid));
  return XAB_RELAY_MBOX_PREFIX + std::string(hex);
}

void unregisterAbmon(int index, const std::string& name) {
  int rc = pvm_delinfo(mboxName(name), index, PvmMboxDefault);
  if (rc < 0) spdlog::warn("pvm_delinfo(\"{}\"): {}", name, pvmErrorName(rc));
}

}  // namespace xab::abmon
