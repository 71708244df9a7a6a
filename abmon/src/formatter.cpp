#include "formatter.h"

#include <xab/events.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>

#include <xab/traceformat/record.h>
#include <xab/traceformat/write.h>

namespace xab::abmon {
namespace {

constexpr std::size_t kRecSize = sizeof(xab_event);
// The smallest a string can take in a message: its id and its length.
constexpr std::size_t kMinStringBytes = 2 * sizeof(std::int32_t);
constexpr bool kHostLittle = std::endian::native == std::endian::little;

constexpr std::string_view kReasonNames[] = {"magic", "version", "recsize", "truncated", "kind",
                                             "string", "tids", "time", "seq", "limit"};
static_assert(std::size(kReasonNames) == static_cast<std::size_t>(BadReason::Count_));

std::uint16_t swap16(std::uint16_t v) { return static_cast<std::uint16_t>(v << 8 | v >> 8); }
std::int32_t swap32(std::int32_t v) {
  return static_cast<std::int32_t>(__builtin_bswap32(static_cast<std::uint32_t>(v)));
}
std::int64_t swap64(std::int64_t v) {
  return static_cast<std::int64_t>(__builtin_bswap64(static_cast<std::uint64_t>(v)));
}

xab_event decode(const std::byte* p, bool swap) {
  xab_event ev;
  std::memcpy(&ev, p, sizeof ev);
  if (swap) {
    ev.t_ns = swap64(ev.t_ns);
    ev.kind = swap16(ev.kind);
    ev.rc = swap32(ev.rc);
    for (auto& v : ev.a) v = swap32(v);
  }
  return ev;
}

std::size_t idx(BadReason r) { return static_cast<std::size_t>(r); }

// PVM's tid layout (pvmtev.h, TIDHOST): bits 18..29 name the host.
constexpr std::uint32_t kTidHostBits = 0x3ffc0000u;
bool sameHost(std::int32_t a, std::int32_t b) {
  return ((static_cast<std::uint32_t>(a) ^ static_cast<std::uint32_t>(b)) & kTidHostBits) == 0;
}
// Spawned tasks kept for their identity; a program that spawns more
// without their ending loses the oldest names.
constexpr std::size_t kMaxSpawned = 65536;

// The sum of the counts of a record's list slots: how many tids follow.
std::uint64_t listTotal(const std::vector<Slot>& slots, const xab_event& ev) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (slots[i].kind == SlotKind::List && ev.a[i] > 0) total += static_cast<std::uint64_t>(ev.a[i]);
  return total;
}

}  // namespace

std::string_view badReasonName(BadReason reason) { return kReasonNames[idx(reason)]; }

Formatter::Formatter(std::int32_t abmonTid, Sessions& sessions, ProblemSink sink)
    : calls_(callTable()), sessions_(sessions), abmonTid_(abmonTid), sink_(std::move(sink)) {}

void Formatter::header(std::string& out, std::string_view host, long pid,
                       std::int64_t startNs) const {
  text::Header h;
  h.hasAbmon = true;
  h.abmon = abmonTid_;
  h.host = host;
  h.pid = static_cast<std::int32_t>(pid);
  h.start = startNs;
  text::appendHeader(out, h);
  out.push_back('\n');
}

// abmon's own records: both times abmon's clock, the kind and fields as
// the schema names them.
void Formatter::ownRecord(std::string& out, std::int64_t ns, std::int32_t tid, Kind kind) const {
  text::appendRecordStart(out, ns, ns, tid, kind);
}

void Formatter::ownField(std::string& out, Key key, std::int64_t value) {
  text::appendKey(out, keyName(key));
  text::appendInt(out, value);
}

void Formatter::start(std::string& out, std::int64_t nowNs, int batch, int flushMs) const {
  ownRecord(out, nowNs, abmonTid_, Kind::ABMON_START);
  ownField(out, Key::Version, XAB_WIRE_VERSION);
  ownField(out, Key::Batch, batch);
  ownField(out, Key::FlushMs, flushMs);
  out.push_back('\n');
}

Formatter::TaskState& Formatter::task(std::int32_t tid) {
  auto [it, added] = tasks_.try_emplace(tid);
  if (added) {
    ++counters_.tasks;
    spoke_.insert(tid);
  }
  return it->second;
}

void Formatter::message(std::string& out, std::int32_t src, std::int64_t recvNs,
                        Unpacker& msg) {
  ++counters_.messages;
  TaskState& st = task(src);
  Session& ses = sessions_.at(src);
  std::int32_t hdr[XAB_HDR_INTS] = {};
  // Magic and version first, alone: a message of another version may have
  // a different header, so nothing after them is read.
  // A message whose sequence number cannot be read still used one up.
  std::optional<BadReason> unreadable;
  if (!msg.ints(hdr, 2))
    unreadable = BadReason::Truncated;
  else if (hdr[XAB_HDR_MAGIC] != XAB_WIRE_MAGIC)
    unreadable = BadReason::Magic;
  else if (hdr[XAB_HDR_VERSION] != XAB_WIRE_VERSION)
    unreadable = BadReason::Version;
  else if (!msg.ints(hdr + 2, XAB_HDR_INTS - 2))
    unreadable = BadReason::Truncated;
  if (unreadable) {
    ++ses.unread;
    return writeBad(out, src, recvNs, *unreadable, 0);
  }

  Tally tally{};
  checkSequence(out, ses, src, recvNs, hdr, tally);
  if (hdr[XAB_HDR_FLAGS] & XAB_HDRF_FINAL) ses.final = true;
  ses.pokes = (hdr[XAB_HDR_FLAGS] & XAB_HDRF_POKE) != 0;
  ses.pokeKey = {hdr[XAB_HDR_POKE_KEY_LO], hdr[XAB_HDR_POKE_KEY_HI]};
  std::int32_t nevents = hdr[XAB_HDR_NEVENTS];
  auto nSkipped = static_cast<std::uint32_t>(nevents > 0 ? nevents : 0);
  if (hdr[XAB_HDR_RECSIZE] != static_cast<std::int32_t>(kRecSize)) {
    writeBad(out, src, recvNs, tally);
    return writeBad(out, src, recvNs, BadReason::RecSize, nSkipped);
  }
  bool swap = false;
  if (!readBody(msg, hdr, swap)) {
    writeBad(out, src, recvNs, tally);
    return writeBad(out, src, recvNs, BadReason::Truncated, nSkipped);
  }

  keepStrings(st, tally);
  for (std::size_t i = 0; i < records_.size(); i += kRecSize)
    record(out, st, src, recvNs, decode(records_.data() + i, swap), tally);
  writeBad(out, src, recvNs, tally);
}

// Reads the string table and the records into the scratch vectors, after
// checking the header's counts against the message's length (so a lying
// header cannot make abmon allocate gigabytes).
bool Formatter::readBody(Unpacker& msg, const std::int32_t* hdr, bool& swap) {
  std::int32_t nstrings = hdr[XAB_HDR_NSTRINGS];
  std::int32_t nevents = hdr[XAB_HDR_NEVENTS];
  std::size_t len = msg.length();
  if (nstrings < 0 || nevents < 0) return false;
  if (static_cast<std::uint64_t>(nstrings) * kMinStringBytes > len) return false;
  if (static_cast<std::uint64_t>(nevents) * kRecSize > len) return false;
  strings_.resize(static_cast<std::size_t>(nstrings));
  for (auto& [id, text] : strings_)
    if (!msg.ints(&id, 1) || !msg.str(text)) return false;
  records_.resize(static_cast<std::size_t>(nevents) * kRecSize);
  if (!records_.empty() && !msg.bytes(records_.data(), records_.size())) return false;
  bool little = (hdr[XAB_HDR_FLAGS] & XAB_HDRF_LITTLE_ENDIAN) != 0;
  swap = little != kHostLittle;
  return true;
}

// The task's new strings into its table, within the table's bounds: a
// string longer than kMaxStringBytes is cut, one beyond kMaxTaskStrings or
// kMaxTaskStringBytes is not kept (a record naming it is then bad).
void Formatter::keepStrings(TaskState& st, Tally& tally) {
  for (auto& [id, text] : strings_) {
    if (id <= 0) continue;  // never named: id 0 and below mean "no string"
    if (text.size() > kMaxStringBytes) {
      text = text.substr(0, kMaxStringBytes);  // a copy: resize would keep the long buffer
      ++tally[idx(BadReason::Limit)];
    }
    auto it = st.strings.find(id);
    std::size_t old = it == st.strings.end() ? 0 : it->second.size();
    if ((it == st.strings.end() && st.strings.size() >= kMaxTaskStrings) ||
        st.stringBytes - old + text.size() > kMaxTaskStringBytes) {
      ++tally[idx(BadReason::Limit)];
      continue;
    }
    st.stringBytes = st.stringBytes - old + text.size();
    st.strings[id] = std::move(text);
  }
}

// Sequence numbers are 32-bit counters that may wrap: compared modulo 2^32,
// a step of less than 2^31 is forward (the messages between are lost), a
// larger one is backwards (bad; the count starts again from it).  So a gap
// is always below 2^31, as the trace format's ints are.
void Formatter::checkSequence(std::string& out, Session& ses, std::int32_t src,
                               std::int64_t recvNs, const std::int32_t* hdr, Tally& tally) {
  std::int32_t seq = hdr[XAB_HDR_SEQ];
  auto expected = ses.lastSeq ? static_cast<std::uint32_t>(*ses.lastSeq) + 1u : 0u;
  std::uint32_t step = static_cast<std::uint32_t>(seq) - expected;
  if (step >= 0x80000000u) {
    ++tally[idx(BadReason::Seq)];
  } else if (std::int64_t gap = std::int64_t{step} - ses.unread; gap > 0) {
    // Messages abmon got but could not read are bad, not lost.
    ownRecord(out, recvNs, src, Kind::ABMON_LOST);
    ownField(out, Key::Messages, gap);
    out.push_back('\n');
  }
  ses.lastSeq = seq;
  ses.unread = 0;
  if (hdr[XAB_HDR_LOST] > 0) {
    ownRecord(out, recvNs, src, Kind::ABMON_LOST);
    ownField(out, Key::N, hdr[XAB_HDR_LOST]);
    out.push_back('\n');
  }
}

void Formatter::record(std::string& out, TaskState& st, std::int32_t src, std::int64_t recvNs,
                       const xab_event& ev, Tally& tally) {
  const CallInfo* call = calls_.find(ev.kind);
  bool isTids = ev.kind == XAB_EV_TIDS;
  if (!call || ev.phase > XAB_PHASE_CONT || isTids != (ev.phase == XAB_PHASE_CONT)) {
    ++tally[idx(BadReason::Kind)];
    return;
  }
  if (isTids) return continuation(out, st, src, ev, tally);
  if (ev.t_ns < 0 || ev.t_ns > kMaxTaskTimeNs) {
    ++tally[idx(BadReason::Time)];
    return;
  }
  flushPending(out, st, src, tally);

  const auto& slots = ev.phase == XAB_PHASE_BEGIN ? call->beginSlots : call->endSlots;
  if (!stringsKnown(st, slots, ev)) {
    ++tally[idx(BadReason::String)];
    return;
  }
  if (ev.kind == XAB_EV_INFO) {  // merged into the task's next record
    st.info.clear();
    appendSlots(st.info, st, slots, ev, {});
    if (identified_) {
      std::string parent, pid;
      text::appendKey(parent, keyName(Key::Parent));
      text::appendKey(pid, keyName(Key::Pid));
      std::int64_t p = 0, id = 0;
      for (std::size_t i = 0; i < slots.size(); ++i) {
        if (slots[i].prefix == parent) p = ev.a[i];
        if (slots[i].prefix == pid) id = ev.a[i];
      }
      identified_(src, static_cast<std::int32_t>(p), static_cast<std::int32_t>(id));
    }
    return;
  }
  if (std::uint64_t total = listTotal(slots, ev); total > 0) {
    // Beyond kMaxListTids the tids are counted, not kept: the line stays
    // readable, and a lying count cannot make abmon allocate much.
    if (total > kMaxListTids) ++tally[idx(BadReason::Limit)];
    st.pending = PendingList{ev, recvNs, total, 0, {}};
    st.pending->tids.reserve(total < 1024 ? total : 1024);
    return;
  }
  writeRecord(out, st, src, recvNs, ev, {});
}

void Formatter::continuation(std::string& out, TaskState& st, std::int32_t src,
                             const xab_event& ev, Tally& tally) {
  if (!st.pending || ev.rc < 0 || ev.rc > 6) {
    ++tally[idx(BadReason::Kind)];
    return;
  }
  PendingList& p = *st.pending;
  for (int i = 0; i < ev.rc && p.received < p.expected; ++i, ++p.received)
    if (p.tids.size() < kMaxListTids) p.tids.push_back(ev.a[i]);
  if (p.received == p.expected) {
    writeRecord(out, st, src, p.recvNs, p.ev, p.tids);
    st.pending.reset();
  }
}

// A record still waiting for tids when something else comes: written with
// the tids it got, and counted as bad.
void Formatter::flushPending(std::string& out, TaskState& st, std::int32_t src, Tally& tally) {
  if (!st.pending) return;
  writeRecord(out, st, src, st.pending->recvNs, st.pending->ev, st.pending->tids);
  st.pending.reset();
  ++tally[idx(BadReason::Tids)];
}

bool Formatter::stringsKnown(const TaskState& st, const std::vector<Slot>& slots,
                              const xab_event& ev) const {
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (slots[i].kind == SlotKind::String && ev.a[i] > 0 && !st.strings.contains(ev.a[i]))
      return false;
  return true;
}

void Formatter::writeRecord(std::string& out, TaskState& st, std::int32_t src,
                             std::int64_t recvNs, const xab_event& ev,
                             const std::vector<std::int32_t>& tids) {
  const CallInfo& call = *calls_.find(ev.kind);
  bool begin = ev.phase == XAB_PHASE_BEGIN;
  const auto& slots = begin ? call.beginSlots : call.endSlots;
  if (!st.info.empty() && std::ranges::any_of(slots, [&](const Slot& s) {
        return st.info.find(s.prefix) != std::string::npos;
      })) {
    // A record with a field of the same name as one of INFO's (hostsync's
    // host=) cannot carry it: a key appears once in a record.
    text::appendRecordStart(out, recvNs, ev.t_ns, src, Kind::INFO);
    out.append(st.info);
    out.push_back('\n');
    st.info.clear();
  }
  text::appendRecordStart(out, recvNs, ev.t_ns, src);
  out.append(begin ? call.beginName : call.name);
  appendSlots(out, st, slots, ev, tids);
  if (!begin && ev.kind == XAB_EV_SPAWN && !tids.empty()) {
    // The spawned program's name as pvmd gives it: without its directory.
    std::string file;
    text::appendKey(file, keyName(Key::File));
    std::string name;
    for (std::size_t i = 0; i < call.endSlots.size(); ++i)
      if (call.endSlots[i].prefix == file && ev.a[i] > 0) name = st.strings.at(ev.a[i]);
    name.erase(0, name.rfind('/') + 1);
    for (std::int32_t t : tids)
      if (t > 0 && sameHost(t, abmonTid_) && (spawnedBy_.size() < kMaxSpawned || spawnedBy_.contains(t)))
        spawnedBy_[t] = {src, name};
    if (spawned_) spawned_(src, {tids.begin(), tids.end()});
  }
  if (!begin) {
    text::appendKey(out, keyName(Key::Rc));
    if (call.rcIsTid)
      text::appendTidResult(out, ev.rc);
    else
      text::appendInt(out, ev.rc);
  }
  if (!st.info.empty()) {
    out.append(st.info);
    st.info.clear();
  }
  out.push_back('\n');
  ++counters_.events;
}

void Formatter::appendSlots(std::string& out, const TaskState& st,
                             const std::vector<Slot>& slots, const xab_event& ev,
                             const std::vector<std::int32_t>& tids) const {
  std::size_t nextTid = 0;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    std::int32_t v = ev.a[i];
    out.append(slots[i].prefix);
    switch (slots[i].kind) {
      case SlotKind::String:
        if (v <= 0) out.push_back('-');  // no string: libab's ids start at 1
        else text::appendEscaped(out, st.strings.at(v));
        break;
      case SlotKind::List: {
        std::size_t n = v > 0 ? static_cast<std::size_t>(v) : 0;
        std::size_t end = std::min(nextTid + n, tids.size());
        if (nextTid >= end) out.push_back('-');
        for (std::size_t k = nextTid; k < end; ++k) {
          if (k > nextTid) out.push_back(',');
          text::appendTid(out, tids[k]);
        }
        nextTid = nextTid + n;
        break;
      }
      default: text::appendValue(out, slots[i].kind, v);
    }
  }
}

// Writes what is held back for a task: a record still waiting for tids,
// an INFO record with nothing after it.
void Formatter::flushTask(std::string& out, std::int32_t tid, TaskState& st,
                           std::int64_t nowNs) {
  Tally tally{};
  flushPending(out, st, tid, tally);
  writeBad(out, tid, nowNs, tally);
  if (!st.info.empty()) {
    ownRecord(out, nowNs, tid, Kind::INFO);
    out.append(st.info);
    out.push_back('\n');
    st.info.clear();
  }
}

void Formatter::spawnedIdentity(std::string& out, std::int32_t tid, std::int64_t nowNs) {
  auto it = spawnedBy_.find(tid);
  if (it == spawnedBy_.end() || tasks_.contains(tid)) return;
  ownRecord(out, nowNs, tid, Kind::INFO);
  if (!it->second.name.empty()) {
    text::appendKey(out, keyName(Key::Name));
    text::appendEscaped(out, it->second.name);
  }
  if (!host_.empty()) {
    text::appendKey(out, keyName(Key::Host));
    text::appendEscaped(out, host_);
  }
  text::appendKey(out, keyName(Key::Parent));
  text::appendParent(out, it->second.parent);
  out.push_back('\n');
  ++counters_.events;
  ++counters_.tasks;
  spawnedBy_.erase(it);
}

void Formatter::silentProgram(std::string& out, std::int32_t tid, std::string_view name, std::int64_t nowNs) {
  if (tid <= 0 || name.empty() || spoke_.contains(tid) || spawnedBy_.contains(tid)) return;
  spoke_.insert(tid);
  ownRecord(out, nowNs, tid, Kind::INFO);
  text::appendKey(out, keyName(Key::Name));
  text::appendEscaped(out, name);
  if (!host_.empty()) {
    text::appendKey(out, keyName(Key::Host));
    text::appendEscaped(out, host_);
  }
  out.push_back('\n');
  ++counters_.events;
  ++counters_.tasks;
}

void Formatter::taskExit(std::string& out, std::int32_t tid, std::int64_t nowNs,
                         std::string_view how, std::optional<std::int64_t> taskNs) {
  spawnedBy_.erase(tid);
  if (auto it = tasks_.find(tid); it != tasks_.end()) {
    flushTask(out, tid, it->second, nowNs);
    tasks_.erase(it);  // PVM may give the tid to a new task later
  }
  sessions_.erase(tid);
  text::appendRecordStart(out, nowNs, taskNs.value_or(nowNs), tid, Kind::TASK_EXIT);
  text::appendKey(out, keyName(Key::How));
  out.append(how);
  out.push_back('\n');
}

// The trace format's ints are 32-bit: a count beyond saturates (the true
// one is in abmon's last line on stderr with -v).
static std::int64_t saturated(std::uint64_t n) {
  return static_cast<std::int64_t>(std::min<std::uint64_t>(n, INT32_MAX));
}

void Formatter::flushAll(std::string& out, std::int64_t nowNs) {
  for (auto& [tid, st] : tasks_) flushTask(out, tid, st, nowNs);
}

void Formatter::programExit(std::string& out, std::int64_t nowNs, std::int32_t tid, int status, int signal) const {
  ownRecord(out, nowNs, abmonTid_, Kind::PROGRAM_EXIT);
  text::appendKey(out, keyName(Key::Tid));
  text::appendTid(out, tid);
  ownField(out, Key::Status, status);
  ownField(out, Key::Signal, signal);
  out.push_back('\n');
}

void Formatter::stop(std::string& out, std::int64_t nowNs, std::uint64_t tracedEvents, std::uint64_t tracedTasks) {
  flushAll(out, nowNs);
  ownRecord(out, nowNs, abmonTid_, Kind::ABMON_STOP);
  ownField(out, Key::Events, saturated(counters_.events + tracedEvents));
  ownField(out, Key::Tasks, saturated(counters_.tasks + tracedTasks));
  ownField(out, Key::Bad, saturated(counters_.bad));
  out.push_back('\n');
}

void Formatter::writeBad(std::string& out, std::int32_t src, std::int64_t ns,
                          const Tally& tally) {
  for (std::size_t r = 0; r < tally.size(); ++r)
    if (tally[r] > 0) writeBad(out, src, ns, static_cast<BadReason>(r), tally[r]);
}

void Formatter::writeBad(std::string& out, std::int32_t src, std::int64_t ns, BadReason reason,
                          std::uint32_t n) {
  ownRecord(out, ns, src, Kind::ABMON_BAD);
  text::appendKey(out, keyName(Key::Reason));
  out.append(badReasonName(reason));
  ownField(out, Key::N, n);
  out.push_back('\n');
  ++counters_.bad;
  ++counters_.badByReason[idx(reason)];
  if (sink_) sink_(Problem{reason, src, n});
}

}  // namespace xab::abmon
