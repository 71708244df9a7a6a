#include "pvm_tracer.h"

#include <pvm3.h>
#include <pvmtev.h>
#include <spdlog/spdlog.h>
#include <xab/traceformat/schema.h>
#include <xab/traceformat/write.h>

#include <array>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string_view>
#include <utility>

#include "mailbox.h"
#include "output_lines.h"
#include "pvm_unpacker.h"

#include <xab/wire.h>

#include <algorithm>

namespace xab::abmon {
namespace {

// Bounds of what abmon keeps per task (docs/abmon.md "Bounds"): a task
// whose records are held back (Origin::Unknown) that long is taken for a
// plain one.  (An output line's bound is OutputLines'.)
constexpr std::size_t kMaxHeldBytes = 256 * 1024;
// How long a task's clock offset told by one event is kept (taskClock).
constexpr std::int64_t kOffsetAgeNs = 1'000'000'000;
// A task whose name was not found is asked about again on its records, at
// most this often (each lookup asks pvmd), and at its end.
constexpr std::int64_t kNameRetryNs = 100'000'000;

// pvmd's own tids have the TIDPVMD bit (0x80000000) set; a task's never do.
bool fromPvmd(int src) { return (static_cast<unsigned>(src) & 0x80000000u) != 0; }

// Which data ids hold a field, first found first: libpvm puts a call's
// arguments in its entry event and the results in its exit event (a send's
// destination, tag and length come on entry; a receive's source, tag and
// length on exit), and an end record is written from both.  A key with no
// data id here, or none in the event, is left out of the record (PVM does
// not say it).
struct KeyDids {
  std::string_view key;
  std::array<int, 2> dids;  // -1: none
};
constexpr KeyDids kKeyDids[] = {
    {"dst", {TEV_DID_DST, TEV_DID_MDL}},  // MDL: mcast's list
    {"src", {TEV_DID_SRC, TEV_DID_RST}},  // got on exit, asked on entry
    {"tag", {TEV_DID_MC, TEV_DID_RMC}},
    {"bytes", {TEV_DID_MNB, -1}},
    {"group", {TEV_DID_GN, -1}},
    {"count", {TEV_DID_GBC, TEV_DID_SC}},  // a barrier's, a spawn's
    {"file", {TEV_DID_SE, -1}},
    {"where", {TEV_DID_SW, -1}},
    {"flags", {TEV_DID_SF, -1}},
    {"tids", {TEV_DID_STL, -1}},
    {"inst", {TEV_DID_GI, -1}},
    {"tid", {TEV_DID_TT, -1}},  // the task a call is about (kill, sendsig, pstat)
    {"nhost", {TEV_DID_NH, -1}},
    {"narch", {TEV_DID_NA, -1}},
};
// The result: the condition code, else what the call returns in its own
// data id (a receive's buffer, mytid's tid, parent's tid).
constexpr int kRcDids[] = {TEV_DID_CC, TEV_DID_MB, TEV_DID_MT, TEV_DID_PT};

// PVM's name for an event where it is not xab's.
Kind kindOf(std::string_view tevName) {
  if (tevName == "getinfo") return Kind::RECVINFO;
  if (tevName == "mhf_invoke") return Kind::OTHER;  // libpvm's own handlers too: not a receive we can tell
  return kindFromName(tevName);
}

// PVM's group server: its messages are the group library's own protocol
// (a joingroup is one record, not the messages it takes), so its events
// would only be sends and receives no task's records show.
bool isGroupServer(std::string_view name) {
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  return name == "pvmgs";
}

// A call libab makes when it starts, before it looks up abmon's mailbox
// entry, is never one of these: a task that makes one is not (or not yet
// known to be) a libab task, and its records are written from then on.
bool settlesPlain(Kind k) {
  return (kindFlags(k) & (XAB_F_MSG_IN | XAB_F_MSG_OUT | XAB_F_BLOCKING)) != 0 || k == Kind::EXIT ||
         k == Kind::KILL || k == Kind::JOINGROUP || k == Kind::LVGROUP || k == Kind::NOTIFY;
}

// pvm_trecv's timeout, as libab records it: microseconds, -1 for none.
// libpvm's entry event carries it as seconds and microseconds (MTS, MTU),
// -1 seconds for a null timeout (wait for ever).  Longer than int's
// microseconds: the longest the field holds.
std::optional<std::int64_t> timeoutUs(const PvmTracer::Datum* sec, const PvmTracer::Datum* usec) {
  if (!sec || sec->ints.empty()) return std::nullopt;
  if (sec->ints[0] < 0) return -1;
  std::int64_t us = sec->ints[0] * 1'000'000 + (usec && !usec->ints.empty() ? usec->ints[0] : 0);
  return std::min<std::int64_t>(us, INT32_MAX);
}

bool blocking(Kind k) { return (kindFlags(k) & XAB_F_BLOCKING) != 0; }
// libpvm dates each event when it begins writing it (tev_begin, gettimeofday
// on the task's clock): a call's entry event before the call's work, its
// exit event after it.  A call written as one record is dated at its entry,
// as libab dates it: a send's entry is before its message left, while its
// exit can come long after the receiver has it (the sender descheduled, on
// one host: receives up to 11 ms before their sends).  A receive that does
// not wait is dated at its exit, when the message was there.
bool datedAtEntry(Kind k) { return !blocking(k) && (kindFlags(k) & XAB_F_MSG_IN) == 0; }
bool carriesMessage(Kind k) { return (kindFlags(k) & (XAB_F_MSG_IN | XAB_F_MSG_OUT)) != 0; }

}  // namespace

const PvmTracer::Datum* PvmTracer::Event::find(int did) const {
  for (const Datum& d : data)
    if (d.did == did) return &d;
  return nullptr;
}

PvmTracer::PvmTracer(int context, int traceTag, int outputTag, TaskSeen seen, IsLibabTask libab, NameOf nameOf)
    : context_(context), traceTag_(traceTag), outputTag_(outputTag), seen_(std::move(seen)), libab_(std::move(libab)),
      nameOf_(std::move(nameOf)) {}

bool PvmTracer::registerTracer() {
  Pvmtmask mask;
  TEV_MASK_INIT(mask);
  for (int k = TEV_FIRST; k <= TEV_MAX; ++k) TEV_MASK_SET(mask, k);
  // libpvm 3.4's trace of pvm_siblings reads the list of a task no
  // pvm_spawn started (a program run from the shell) through a null
  // pointer: the task dies of SIGSEGV (gexample does).  Not traced.
  TEV_MASK_UNSET(mask, TEV_SIBLINGS);
  // libpvm 3.4 runs a message handler (pvm_addmhf; pvm_catchout's output
  // handler is one) inside the call that reads the message, which is inside
  // the message layer (mroute), often while it sends a trace event.  With
  // TEV_MHF_INVOKE traced, libpvm sends that event from there and traces
  // every call the handler makes as a call of the program's own (its
  // "top level" is set again), each event sent at once, each send reading
  // more messages and running more handlers: the trace buffer and the
  // program's send buffer are swapped and freed under each other's feet
  // (pvm_setsbuf(): No such buffer, then abort() in tev_flush).  Not
  // traced: libpvm then sends no event from inside a handler, and the
  // calls a handler makes are not recorded (docs/abmon.md "PVM's tracer").
  TEV_MASK_UNSET(mask, TEV_MHF_INVOKE);
  // Unbuffered (0): a task killed mid-run has sent every event it made.
  int rc = pvm_reg_tracer(context_, traceTag_, context_, outputTag_, mask, 0, PvmTraceFull);
  if (rc == PvmAlready) {
    std::cerr << "abmon: another tracer is registered with this virtual machine (XPVM, PVM's tracer?):"
                 " not tracing unmodified tasks; recording libab's events only\n";
    return false;
  }
  if (rc < 0) {
    std::cerr << "abmon: pvm_reg_tracer: " << pvmErrorName(rc)
              << ": recording libab's events only\n";
    return false;
  }
  registered_ = true;
  learnGroupServers();
  return true;
}

// A group server started before abmon (by an earlier program: it stays)
// is not announced by pvmd's spawn event: pvmd's task list names it.
void PvmTracer::learnGroupServers() {
  int n = 0;
  pvmtaskinfo* tasks = nullptr;
  if (pvm_tasks(0, &n, &tasks) < 0) return;
  for (int i = 0; i < n; ++i)
    if (tasks[i].ti_a_out && isGroupServer(tasks[i].ti_a_out)) groupServers_.insert(tasks[i].ti_tid);
}

void PvmTracer::unregisterTracer() {
  if (!registered_) return;
  Pvmtmask none;
  TEV_MASK_INIT(none);
  pvm_reg_tracer(-1, 0, -1, 0, none, 0, 0);
  registered_ = false;
}

void PvmTracer::take(std::string& out, int bufid, int tag, int src, std::int64_t recvNs) {
  (void)bufid;  // the receive buffer is PVM's current one
  if (tag == outputTag_) takeOutput(out, src, recvNs);
  else takeTrace(out, src, recvNs);
}

// A message: a data id list (pvmd's first), a buffer of events, or events.
void PvmTracer::takeTrace(std::string& out, int src, std::int64_t recvNs) {
  msg_.emplace(pvm_getrbuf());  // its string buffer is the message's size: made once
  for (;;) {
    int marker = 0;
    if (pvm_upkint(&marker, 1, 1) < 0) return;  // the message's end
    switch (marker) {
      case TEV_MARK_EVENT_BUFFER:
      case TEV_MARK_EVENT_BUFFER_END: continue;
      case TEV_MARK_DATA_ID:
        if (!skipDataIds()) return void(++bad_);
        continue;
      case TEV_MARK_EVENT_DESC:
      case TEV_MARK_EVENT_RECORD: {
        Event ev;
        if (!readEvent(src, marker, ev)) return void(++bad_);
        write(out, ev, src, recvNs);
        continue;
      }
      default:  // user-defined events (and anything else): not ours to read
        spdlog::debug("PVM trace message from t{:x}: marker {} not read", src, marker);
        return;
    }
  }
}

// The list of data ids and their descriptions: pvmtev.h knows them.
bool PvmTracer::skipDataIds() {
  std::string s;
  for (;;) {
    int did = 0;
    if (pvm_upkint(&did, 1, 1) < 0) return false;
    if (did == TEV_MARK_DATA_ID_END) return true;
    if (!msg_->str(s) || !msg_->str(s)) return false;  // its name, its description
  }
}

bool PvmTracer::readEvent(int src, int marker, Event& ev) {
  if (pvm_upkint(&ev.eid, 1, 1) < 0) return false;
  // Event ids PVM knows, entry or exit: the descriptors kept stay bounded.
  const int tev = ev.eid & ~(TEV_EVENT_ENTRY | TEV_EVENT_EXIT);
  if (tev < TEV_FIRST || tev > TEV_MAX || (ev.eid & ~(TEV_EVENT_ENTRY | TEV_EVENT_EXIT | 0x3fff)) != 0) return false;
  auto& known = descriptors_[src];
  if (marker == TEV_MARK_EVENT_DESC) {
    Descriptor desc;
    if (!msg_->str(desc.name)) return false;
    for (;;) {
      int did = 0, type = 0;
      if (pvm_upkint(&did, 1, 1) < 0) return false;
      if (did == TEV_MARK_EVENT_DESC_END) break;
      if (pvm_upkint(&type, 1, 1) < 0) return false;
      Datum d;
      d.did = did;
      if (!readDatum(type, d)) return false;
      ev.data.push_back(std::move(d));
      desc.fields.push_back({did, type});
    }
    ev.name = desc.name;
    known[ev.eid] = std::move(desc);
    return true;
  }
  auto it = known.find(ev.eid);
  if (it == known.end()) return false;  // a record before its descriptor
  ev.name = it->second.name;
  for (const Field& f : it->second.fields) {
    Datum d;
    d.did = f.did;
    if (!readDatum(f.type, d)) return false;
    ev.data.push_back(std::move(d));
  }
  int end = 0;
  return pvm_upkint(&end, 1, 1) >= 0 && end == TEV_MARK_EVENT_RECORD_END;
}

// One datum's values; numbers of every type are kept as int64 (floating
// point ones truncated: no field of ours is one).
bool PvmTracer::readDatum(int type, Datum& d) {
  int n = 1;
  if ((type & TEV_DATA_ARRAY) != 0 && (pvm_upkint(&n, 1, 1) < 0 || n < 0)) return false;
  int bytes = 0;
  pvm_bufinfo(pvm_getrbuf(), &bytes, nullptr, nullptr);
  if (n > bytes) return false;  // a count no message this size can hold
  for (int i = 0; i < n; ++i) {
    bool ok = true;
    std::int64_t v = 0;
    switch (type & ~TEV_DATA_ARRAY) {
      case TEV_DATA_STRING: {
        std::string s;
        ok = msg_->str(s);
        d.strs.push_back(std::move(s));
        continue;
      }
      case TEV_DATA_BYTE: { char c = 0; ok = pvm_upkbyte(&c, 1, 1) >= 0; v = c; break; }
      case TEV_DATA_INT: { int x = 0; ok = pvm_upkint(&x, 1, 1) >= 0; v = x; break; }
      case TEV_DATA_UINT: { unsigned x = 0; ok = pvm_upkuint(&x, 1, 1) >= 0; v = x; break; }
      case TEV_DATA_LONG: { long x = 0; ok = pvm_upklong(&x, 1, 1) >= 0; v = x; break; }
      case TEV_DATA_ULONG: { unsigned long x = 0; ok = pvm_upkulong(&x, 1, 1) >= 0; v = static_cast<std::int64_t>(x); break; }
      case TEV_DATA_SHORT: { short x = 0; ok = pvm_upkshort(&x, 1, 1) >= 0; v = x; break; }
      case TEV_DATA_USHORT: { unsigned short x = 0; ok = pvm_upkushort(&x, 1, 1) >= 0; v = x; break; }
      case TEV_DATA_FLOAT: { float x = 0; ok = pvm_upkfloat(&x, 1, 1) >= 0; v = static_cast<std::int64_t>(x); break; }
      case TEV_DATA_DOUBLE: { double x = 0; ok = pvm_upkdouble(&x, 1, 1) >= 0; v = static_cast<std::int64_t>(x); break; }
      case TEV_DATA_CPLX: { float x[2] = {}; ok = pvm_upkcplx(x, 1, 1) >= 0; break; }
      case TEV_DATA_DCPLX: { double x[2] = {}; ok = pvm_upkdcplx(x, 1, 1) >= 0; break; }
      default: return false;  // structures, deferred data: PVM's libpvm sends none
    }
    if (!ok) return false;
    d.ints.push_back(v);
  }
  return true;
}

// One TEV event as a record of ours.
void PvmTracer::write(std::string& out, const Event& ev, int src, std::int64_t recvNs) {
  const std::string& name = ev.name;
  const Datum* tidD = ev.find(TEV_DID_TID);
  if (!tidD || tidD->ints.empty()) return void(++bad_);
  int tid = static_cast<int>(tidD->ints[0]);
  bool entry = (ev.eid & TEV_EVENT_ENTRY) != 0;
  int tev = ev.eid & ~(TEV_EVENT_ENTRY | TEV_EVENT_EXIT);
  // Any task may send to abmon's context with these tags: a task speaks
  // only for itself, and only pvmd of tasks starting and ending.
  bool taskEvent = tev == TEV_NEWTASK || tev == TEV_SPNTASK || tev == TEV_ENDTASK;
  bool asPvmd = fromPvmd(src) || (taskEvent && speaksAsPvmd(src));
  if (asPvmd ? !taskEvent : tid != src || taskEvent) return void(++forged_);
  if (spdlog::should_log(spdlog::level::trace)) {
    std::string dump;
    for (const Datum& d : ev.data) {
      dump += fmt::format(" {}=", d.did);
      for (auto v : d.ints) dump += fmt::format("{},", v);
      for (const auto& s : d.strs) dump += s + ",";
    }
    spdlog::trace("TEV {}{} t{:x}:{}", name, entry ? ".entry" : ".exit", tid, dump);
  }
  // pvmd says a task has started under the tid of one that has ended: a new
  // task, whose identity, kind (libab or not) and exit are its own.
  if ((tev == TEV_NEWTASK || tev == TEV_SPNTASK) && asPvmd)
    if (auto it = identities_.find(tid); it != identities_.end() && it->second.ended) forget(tid);
  if (groupServers_.count(tid) > 0) return void(++dropped_);
  Identity& who = identities_[tid];
  if (who.origin != Origin::Libab && ((libab_ && libab_(tid)) || looksUpAbmon(ev))) {
    who.origin = Origin::Libab;  // libab's records say more
    dropped_ += static_cast<std::uint64_t>(std::count(who.held.begin(), who.held.end(), '\n'));
    who.held.clear();
  }
  if (who.origin == Origin::Libab) return void(++dropped_);
  if (tev == TEV_NEWTASK || tev == TEV_SPNTASK || tev == TEV_ENDTASK) {
    Identity& id = identities_[tid];
    // The program's name without its directory, as for the program abmon
    // started (Monitor::programName): one program, one name, however spawned.
    if (const Datum* n = ev.find(TEV_DID_TN); n && !n->strs.empty() && n->strs[0] != "-")
      id.name = n->strs[0].substr(n->strs[0].rfind('/') + 1);
    if (const Datum* p = ev.find(TEV_DID_PT); p && !p->ints.empty()) id.parent = static_cast<int>(p->ints[0]);
    // A group server (one started again exits at once: "Group Server
    // already running?") is no task of the program's: not watched.
    if (isGroupServer(id.name)) return void(groupServers_.insert(tid));
    if (tev == TEV_ENDTASK) return;
    // Named while it runs (a task pvmd did not spawn: the console, a
    // program started from a shell): its process may be gone by its end.
    lookUpName(id, tid, recvNs, true);
    announce(tid);
    return;  // the task's own events and its exit (task.exit) speak for it
  }
  Kind kind = kindOf(name);
  if (kind == Kind::OTHER) return;
  if (entry && kind != Kind::EXIT) lastEntry_[{tid, tev}] = ev;  // per call kind: a call may make others inside
  // pvm_exit's exit event is never sent (the task has left PVM by then):
  // its record is written from the entry event, and an exit event ignored.
  if (kind == Kind::EXIT && !entry) return;
  if (entry && !blocking(kind) && kind != Kind::EXIT) return;  // written with the exit event
  Phase phase = entry && kind != Kind::EXIT ? Phase::Begin : Phase::End;
  Event merged;
  if (!entry) {  // the exit's data first, then the entry's arguments
    merged.data = ev.data;
    if (auto e = lastEntry_.find({tid, tev}); e != lastEntry_.end()) {
      if (datedAtEntry(kind))  // the entry's date first: the one writeRecord finds
        for (int did : {TEV_DID_TU, TEV_DID_TS})
          if (const Datum* d = e->second.find(did)) merged.data.insert(merged.data.begin(), *d);
      merged.data.insert(merged.data.end(), e->second.data.begin(), e->second.data.end());
      lastEntry_.erase(e);
    }
  }
  const Event& all = entry ? ev : merged;
  if (kind == Kind::SPAWN && !entry)
    if (const Datum* tids = all.find(TEV_DID_STL); tids && !tids->ints.empty()) {
      learnSpawned(tid, *tids, all.find(TEV_DID_SE));
      if (spawned_) spawned_(tid, std::vector<int>(tids->ints.begin(), tids->ints.end()));
    }
  // PVM's own control messages (a direct route's setup, ...) have tags
  // with the top bit set, which programs cannot use: libab records none.
  if (const Datum* tag = all.find(TEV_DID_MC);
      carriesMessage(kind) && tag && !tag->ints.empty() && tag->ints[0] < -1)
    return void(++dropped_);
  // A group call's own messages to and from pvmgs (pvm_freezegroup and
  // others libgpvm3 does not trace as one call send and receive at the top
  // level): PVM's protocol, not the program's; libab records none either.
  if (carriesMessage(kind) && talksToGroupServer(all)) return void(++dropped_);
  announce(tid);
  if (who.origin == Origin::Unknown) {
    if (!settlesPlain(kind) && who.held.size() < kMaxHeldBytes)
      return writeRecord(who.held, ev, all, kind, phase, tid, recvNs);
    who.origin = Origin::Plain;
    out += who.held;
    who.held.clear();
  }
  writeRecord(out, ev, all, kind, phase, tid, recvNs);
}

void PvmTracer::writeRecord(std::string& out, const Event& ev, const Event& all, Kind kind, Phase phase, int tid,
                            std::int64_t recvNs) {
  const Datum* secD = all.find(TEV_DID_TS);
  const Datum* usecD = all.find(TEV_DID_TU);
  std::int64_t taskNs = secD && usecD && !secD->ints.empty() && !usecD->ints.empty()
                            ? secD->ints[0] * 1'000'000'000 + usecD->ints[0] * 1000
                            : recvNs;
  text::appendRecordStart(out, recvNs, taskNs, tid, kind, phase);
  noteStamp(identities_[tid], taskNs, recvNs);
  for (const SlotSpec& slot : kindSlots(kind, phase)) {
    const Datum* d = nullptr;
    for (const KeyDids& kd : kKeyDids)
      if (kd.key == slot.key)
        for (int did : kd.dids)
          if (!d && did >= 0) d = all.find(did);
    if (slot.key == keyName(Key::Timeout)) {
      if (auto us = timeoutUs(all.find(TEV_DID_MTS), all.find(TEV_DID_MTU))) {
        text::appendKey(out, slot.key);
        text::appendInt(out, *us);
      }
      continue;
    }
    if (!d) continue;  // PVM does not say it: absent
    if (slot.type == SlotType::String) {
      if (d->strs.empty()) continue;
      text::appendKey(out, slot.key);
      text::appendEscaped(out, d->strs[0]);
    } else if (slot.type == SlotType::List) {
      std::vector<std::int32_t> tids(d->ints.begin(), d->ints.end());
      text::appendKey(out, slot.key);
      text::appendTidList(out, tids);
    } else if (!d->ints.empty()) {
      text::appendKey(out, slot.key);
      text::appendValue(out, slot.spelling, static_cast<std::int32_t>(d->ints[0]));
    }
  }
  const Datum* rc = nullptr;
  for (int did : kRcDids)
    if (!rc && phase == Phase::End) rc = ev.find(did);
  if (rc && !rc->ints.empty()) {
    text::appendKey(out, keyName(Key::Rc));
    if (kindRcType(kind) == 't') text::appendTidResult(out, static_cast<std::int32_t>(rc->ints[0]));
    else text::appendInt(out, rc->ints[0]);
  }
  if (carriesMessage(kind) && phase == Phase::End) {
    text::appendMatchOrder(out);
  }
  writeIdentity(out, tid, recvNs);
  out.push_back('\n');
  ++events_;
}

// The task's identity on its first record, as far as pvmd told it (the
// program's name for a spawned task, the parent); host, language and pid
// are not in PVM's events.  A name not known then is looked up again until
// it is, and written on the record that follows.
void PvmTracer::writeIdentity(std::string& out, int tid, std::int64_t nowNs) {
  Identity& id = identities_[tid];
  bool first = !id.written;
  if (!first && id.named) return;
  if (first) {
    id.written = true;
    ++tasks_;
  }
  lookUpName(id, tid, nowNs, first);
  if (!id.name.empty()) {
    text::appendKey(out, keyName(Key::Name));
    text::appendEscaped(out, id.name);
    id.named = true;
  }
  if (first && id.parent) {
    text::appendKey(out, keyName(Key::Parent));
    text::appendParent(out, *id.parent);
  }
}

// The name pvmd (or the task's process) gives, unless known already or
// (unless asked `now`) asked less than kNameRetryNs before nowNs.
void PvmTracer::lookUpName(Identity& id, int tid, std::int64_t nowNs, bool now) {
  if (!id.name.empty() || !nameOf_) return;
  if (!now && nowNs - id.nameAskedNs < kNameRetryNs) return;
  id.name = nameOf_(tid, id.parent && *id.parent < 0);
  id.nameAskedNs = nowNs;
}

// A spawn's result names its tasks: their parent and program, whatever
// else of them is lost (pvmd's spntask says the same, when it comes), and
// their exit is watched.
void PvmTracer::learnSpawned(int parent, const Datum& tids, const Datum* file) {
  for (std::int64_t t : tids.ints) {
    if (t <= 0 || groupServers_.count(static_cast<int>(t)) > 0) continue;
    if (file && !file->strs.empty() && isGroupServer(file->strs[0])) {
      groupServers_.insert(static_cast<int>(t));  // no task of the program's
      continue;
    }
    Identity& id = identities_[static_cast<int>(t)];
    if (id.origin == Origin::Libab || id.ended) continue;
    if (!id.parent) id.parent = parent;
    if (id.name.empty() && file && !file->strs.empty()) id.name = file->strs[0].substr(file->strs[0].rfind('/') + 1);
    announce(static_cast<int>(t));
  }
}

// The Monitor watches a task's exit once: a task whose exit is written may
// still have events on the way (pvmd's notice can overtake them), and a
// second pvm_notify for a task that has gone would give a second task.exit.
void PvmTracer::announce(int tid) {
  if (seen_ && announced_.insert(tid).second) seen_(tid);
}

bool PvmTracer::talksToGroupServer(const Event& ev) const {
  for (int did : {TEV_DID_DST, TEV_DID_SRC, TEV_DID_RST})
    if (const Datum* d = ev.find(did); d && !d->ints.empty() && groupServers_.count(static_cast<int>(d->ints[0])) > 0)
      return true;
  return false;
}

// libab's start: it reads abmon's mailbox entry (pvm_recvinfo, PVM's "getinfo").
bool PvmTracer::looksUpAbmon(const Event& ev) {
  const Datum* name = ev.find(TEV_DID_CN);
  return ev.name == "getinfo" && name && !name->strs.empty() && name->strs[0] == XAB_MBOX_NAME;
}

void PvmTracer::flushTask(std::string& out, int tid, std::int64_t nowNs) {
  auto it = identities_.find(tid);
  if (it == identities_.end() || it->second.origin == Origin::Libab) return;
  out += it->second.held;  // it never showed it was libab's
  it->second.held.clear();
  it->second.origin = Origin::Plain;
  // A task that made no call PVM traces (the console): its identity on a
  // line of its own, before its task.exit; so is a name found only now.
  Identity& id = it->second;
  if (announced_.count(tid) == 0 || (libab_ && libab_(tid))) return;
  if (id.written && !id.named) lookUpName(id, tid, nowNs, true);
  if ((!id.written && (!id.name.empty() || id.parent)) || (id.written && !id.named && !id.name.empty())) {
    text::appendRecordStart(out, nowNs, nowNs, tid, Kind::INFO, Phase::End);
    writeIdentity(out, tid, nowNs);
    out.push_back('\n');
    ++events_;
  }
}

// A stale bound goes: a clock that runs slower than abmon's (drift) would
// keep an old, larger difference, kOffsetAgeNs times its drift too large.
void PvmTracer::noteStamp(Identity& id, std::int64_t taskNs, std::int64_t recvNs) {
  const std::int64_t offset = taskNs - recvNs;
  if (!id.lastTaskNs || offset > id.offsetNs || recvNs - id.offsetAtNs > kOffsetAgeNs) {
    id.offsetNs = offset;
    id.offsetAtNs = recvNs;
  }
  id.lastTaskNs = std::max(taskNs, id.lastTaskNs.value_or(taskNs));
}

std::optional<std::int64_t> PvmTracer::taskClock(int tid, std::int64_t nowNs) const {
  auto it = identities_.find(tid);
  if (it == identities_.end() || it->second.origin == Origin::Libab || !it->second.lastTaskNs) return std::nullopt;
  return std::max(*it->second.lastTaskNs, nowNs + it->second.offsetNs);
}

bool PvmTracer::traces(int tid) const {
  auto it = identities_.find(tid);
  return it != identities_.end() && it->second.origin != Origin::Libab;
}

void PvmTracer::taskEnded(int tid) {
  if (auto it = identities_.find(tid); it != identities_.end()) it->second.ended = true;
}

// The test knob XAB_TEST_PVMD_TASK=NAME (docs/abmon.md): a task pvmd
// started as NAME may tell of tasks starting and ending as pvmd does, so a
// test can make abmon see a task under a tid whose exit it has written
// (PVM reuses a tid only after 262143 others, minutes).  Unset: pvmd only.
bool PvmTracer::speaksAsPvmd([[maybe_unused]] int src) const {
#ifndef XAB_TEST_KNOBS
  return false;
#else
  static const std::string name = [] {
    const char* v = std::getenv("XAB_TEST_PVMD_TASK");
    return std::string(v ? v : "");
  }();
  if (name.empty()) return false;
  auto it = identities_.find(src);
  return it != identities_.end() && it->second.name == name;
#endif
}

void PvmTracer::forget(int tid) {
  identities_.erase(tid);
  announced_.erase(tid);
  groupServers_.erase(tid);
  descriptors_.erase(tid);
  std::erase_if(lastEntry_, [tid](const auto& e) { return e.first.first == tid; });
}

}  // namespace xab::abmon
