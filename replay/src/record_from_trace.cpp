// record_from_trace.cpp -- a full trace read as a record (record_set.h): the entries libab's record mode would have written, made
// from the trace's records, with the rules of xab/record.h (which calls are
// numbered, which are recorded) and the model's message matching.
#include <xab/model/time_base.h>
#include <xab/model/messages.h>
#include <xab/model/reader.h>
#include <xab/replay/record_set.h>
#include <xab/model/trace.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

namespace xab::replay {
namespace {

constexpr Tid kPvmdBit = static_cast<Tid>(0x80000000u);
constexpr Tid kHostField = 0x3ffc0000;  // PVM's host part of a tid
constexpr Key kNhost = static_cast<Key>(fieldKey("nhost"));
constexpr Key kNarch = static_cast<Key>(fieldKey("narch"));
constexpr Key kNtask = static_cast<Key>(fieldKey("ntask"));

class Converter {
 public:
  explicit Converter(const Trace& trace) : trace_(trace), messages_(matchMessages(trace)) {}

  std::vector<RecordedTask> run() {
    checkWhole();
    std::vector<RecordedTask> out;
    for (TaskIndex t = 0; t < trace_.taskCount(); ++t)
      if (auto rt = task(t)) out.push_back(std::move(*rt));
    if (out.empty())
      throw std::runtime_error("the trace has no receive-like call or spawn of any task: nothing to replay");
    checkOneRoot(out);
    return out;
  }

 private:
  const Trace& trace_;
  MessageTable messages_;
  TaskIndex t_ = 0;  // the task being converted
  RecordedTask rec_;

  // Where a call is, for messages: "task t40002 (xabrace), call 3 recv".
  std::string where(std::uint32_t seq, Kind k) const {
    return "task " + formatTid(trace_.task(t_).tid) + " (" + std::string(trace_.taskName(t_)) + "), call " +
           std::to_string(seq) + " " + std::string(kindName(k));
  }

  // What makes a record from this trace wrong whatever the task.
  void checkWhole() const {
    if (!messages_.consistent())
      throw std::runtime_error("the trace repeats message serials (" + std::to_string(messages_.duplicateSerials) +
                               " sends, " + std::to_string(messages_.duplicateReceives) +
                               " receives): two runs in one file? A record is one run's");
    for (TaskIndex t = 0; t < trace_.taskCount(); ++t)
      if (trace_.task(t).lost > 0 || trace_.task(t).lostMessages > 0)
        throw std::runtime_error("abmon lost events of task " + formatTid(trace_.task(t).tid) + " (" +
                                 std::string(trace_.taskName(t)) +
                                 ") in this trace: a record made from it could miss receives");
  }

  // abreplay replays one command and the tasks it spawns: every other
  // task must come from a spawn of the trace, or it would never run (a
  // trace translated from PICL has no spawn tree; tasks started by hand).
  void checkOneRoot(const std::vector<RecordedTask>& tasks) const {
    std::set<Tid> spawned;
    for (const auto& t : tasks)
      for (const auto& e : t.entries)
        if (e.outcome == XAB_REC_TIDS)
          for (Tid tid : e.v)
            if (tid > 0) spawned.insert(tid);
    std::vector<const RecordedTask*> roots;
    for (const auto& t : tasks)
      if (!spawned.count(t.header.tid)) roots.push_back(&t);
    if (roots.empty())  // every task spawned by another: no command (a damaged trace)
      throw std::runtime_error("every task of the trace was spawned by another: which one is the command?");
    if (roots.size() == 1) return;
    std::sort(roots.begin(), roots.end(), [](auto* a, auto* b) { return a->header.start_ns < b->header.start_ns; });
    std::string named;
    for (std::size_t i = 0; i < roots.size() && i < 4; ++i)
      named += (i ? ", " : "") + formatTid(roots[i]->header.tid) + " " + roots[i]->header.name;
    throw std::runtime_error(std::to_string(roots.size()) + " tasks were started by no spawn of the trace (" + named +
                             (roots.size() > 4 ? ", ..." : "") +
                             "): abreplay replays one command and the tasks it spawns, so the trace must hold the "
                             "spawn of every task but the first (a trace translated from PICL has none; tasks "
                             "started by hand?)");
  }

  // An entry at the end, or at `at`: where libab wrote a blocking
  // receive's pending entry, before what came in while it waited (a
  // handler's message).
  void add(std::uint32_t seq, TimeNs t, Kind kind, int outcome, std::initializer_list<std::int32_t> v,
           std::optional<std::size_t> at = std::nullopt) {
    xab_rec_entry e{};
    e.t_ns = t;
    e.seq = seq;
    e.kind = static_cast<std::uint16_t>(kind);
    e.outcome = static_cast<std::uint16_t>(outcome);
    std::copy(v.begin(), v.end(), e.v);
    rec_.entries.insert(at ? rec_.entries.begin() + std::ptrdiff_t(*at) : rec_.entries.end(), e);
  }

  // Up to 6 values an entry (a spawn's tids or hosts), as libab writes them.
  void addList(std::uint32_t seq, TimeNs t, int outcome, const std::vector<Tid>& list) {
    for (std::size_t i = 0; i < list.size(); i += XAB_REC_LIST_PER_ENTRY) {
      xab_rec_entry e{};
      e.t_ns = t;
      e.seq = seq;
      e.kind = static_cast<std::uint16_t>(Kind::SPAWN);
      e.outcome = static_cast<std::uint16_t>(outcome);
      std::copy(list.begin() + std::ptrdiff_t(i), list.begin() + std::ptrdiff_t(std::min(list.size(), i + XAB_REC_LIST_PER_ENTRY)), e.v);
      rec_.entries.push_back(e);
    }
  }

  // The message a receive-like end record names must be in the trace:
  // its sender a task of the trace, its send matched by the model.
  void checkMessage(std::uint32_t seq, const Event& e, std::uint32_t index) const {
    if (!e.has(slotOf(e.kind, e.phase, Key::Serial)) || !e.has(slotOf(e.kind, e.phase, Key::Src)))
      throw std::runtime_error(where(seq, e.kind) +
                               ": the trace names no src= and serial= of the message received (an older trace, or "
                               "one translated from another format): it cannot serve as a record; record the run "
                               "with abreplay --record, or trace it with this abmon");
    Tid src = e.get(Key::Src);
    std::int32_t serial = e.get(Key::Serial);
    if (serial == 0) return;  // from a task without libab, or pvmd: matched by tag in replay
    auto sender = trace_.findTask(src);
    std::string msg = where(seq, e.kind) + ": got serial " + std::to_string(serial) + " of " + formatTid(src);
    if (!sender) throw std::runtime_error(msg + ", a task this trace does not have: which message is ambiguous");
    bool matched = e.kind == Kind::PROBE ? messages_.find(*sender, serial) >= 0
                                         : messages_.messageOf(EventRef{t_, index}) >= 0;
    if (!matched) throw std::runtime_error(msg + ", whose send is not in the trace: which message is ambiguous");
  }

  void receive(std::uint32_t seq, const Event& e, const Event* begin, std::uint32_t index, std::size_t at) {
    bool blocking = e.kind == Kind::RECV || e.kind == Kind::TRECV || e.kind == Kind::PRECV;
    if (blocking && !begin)
      throw std::runtime_error(where(seq, e.kind) + ": the trace has its end but not its begin record (the source "
                               "and tag it asked for)");
    bool got = e.kind == Kind::PROBE ? e.rc > 0 : gotMessage(e);
    // nrecv and probe have no begin record: their end names what they asked
    // for only when they found nothing.
    std::int32_t askedSrc = begin ? begin->get(Key::Src) : got ? XAB_REC_ARG_UNKNOWN : e.get(Key::Src);
    std::int32_t askedTag = begin ? begin->get(Key::Tag) : got ? XAB_REC_ARG_UNKNOWN : e.get(Key::Tag);
    if (!xab_record_wanted(static_cast<int>(e.kind), askedSrc, askedTag)) return;
    int outcome = XAB_REC_ERROR;
    if (got) {
      checkMessage(seq, e, index);
      outcome = XAB_REC_GOT;
    } else if (e.rc == 0) {
      outcome = e.kind == Kind::TRECV ? XAB_REC_TIMEOUT : XAB_REC_NONE;
    }
    add(seq, e.time, e.kind, outcome,
        {XAB_REC_V_RECEIVE(askedSrc, askedTag, e.get(Key::Src), e.get(Key::Tag), got ? e.get(Key::Serial) : 0, e.rc)}, at);
  }

  // The spawn, its tids, their hosts (a host's pvmd tid as PVM forms it
  // from a task's tid) and each new host's name, once per host and task.
  void spawn(std::uint32_t seq, const Event& e, const Event* begin, std::set<Tid>& named) {
    std::int32_t asked = begin ? begin->get(Key::Count) : e.get(Key::Count);
    std::vector<Tid> tids, hosts;
    for (Tid tid : trace_.list(e.get(Key::Tids, -1)))
      if (tid > 0 && static_cast<std::int32_t>(tids.size()) < std::max(e.rc, 0)) tids.push_back(tid);
    add(seq, e.time, Kind::SPAWN, XAB_REC_SPAWN, {XAB_REC_V_SPAWN(asked, static_cast<std::int32_t>(tids.size()))});
    if (tids.empty()) return;
    for (Tid tid : tids) hosts.push_back(kPvmdBit | (tid & kHostField));
    addList(seq, e.time, XAB_REC_TIDS, tids);
    addList(seq, e.time, XAB_REC_HOSTS, hosts);
    for (std::size_t i = 0; i < tids.size(); ++i) {
      auto child = trace_.findTask(tids[i]);
      std::string_view host = child ? trace_.str(trace_.task(*child).host) : std::string_view{};
      // A name the plan's words cannot carry (spaces: a damaged trace) is left unnamed ("-").
      bool word = !host.empty() && std::none_of(host.begin(), host.end(), [](char c) { return c <= ' '; });
      if (!word || !named.insert(hosts[i]).second) continue;
      xab_rec_entry h{};
      h.t_ns = e.time;
      h.seq = seq;
      h.kind = static_cast<std::uint16_t>(Kind::SPAWN);
      h.outcome = XAB_REC_HOSTNAME;
      h.v[0] = hosts[i];
      std::memcpy(&h.v[1], host.data(), std::min(host.size(), XAB_REC_HOSTNAME_BYTES));
      rec_.entries.push_back(h);
    }
  }

  std::optional<RecordedTask> task(TaskIndex t) {
    t_ = t;
    rec_ = RecordedTask{};
    const auto& ev = trace_.events(t);
    std::uint32_t ended = 0;
    // A numbered call's begin, not ended yet (kNone: none).  An index, not
    // a std::optional: GCC's -Wmaybe-uninitialized misreads one at -O1.
    constexpr std::uint32_t kNone = UINT32_MAX;
    std::uint32_t open = kNone;
    std::size_t openAt = 0;              // the entries before it began
    std::optional<TimeNs> start;
    std::set<Tid> named;
    for (std::uint32_t i = 0; i < ev.size(); ++i) {
      const Event& e = ev[i];
      int kind = static_cast<int>(e.kind);
      if (xab_record_numbered(kind)) {
        if (!start) start = e.time;
        if (e.isBegin()) {
          open = i;
          openAt = rec_.entries.size();
          continue;
        }
        const Event beginEvent = open != kNone ? ev[open] : Event{};
        const Event* begin = open != kNone && beginEvent.kind == e.kind ? &beginEvent : nullptr;
        open = kNone;
        if (e.kind == Kind::SPAWN) spawn(++ended, e, begin, named);
        else receive(++ended, e, begin, i, begin ? openAt : rec_.entries.size());
        continue;
      }
      if (e.isBegin()) continue;
      // Not numbered: the number of the call they came in or after (a
      // handler runs inside the receive that was waiting).
      std::uint32_t seq = open != kNone ? ended + 1 : ended;
      if (e.kind == Kind::CONFIG)
        add(seq, e.time, e.kind, XAB_REC_RESULT, {XAB_REC_V_CONFIG(e.get(kNhost), e.get(kNarch), e.rc)});
      else if (e.kind == Kind::TASKS)
        add(seq, e.time, e.kind, XAB_REC_RESULT, {XAB_REC_V_TASKS(e.get(Key::Where), e.get(kNtask), e.rc)});
      else if (e.kind == Kind::HANDLER) {
        checkMessage(seq, e, i);
        add(seq, e.time, e.kind, XAB_REC_HANDLER, {XAB_REC_V_HANDLER(e.get(Key::Src), e.get(Key::Tag), e.get(Key::Serial))});
      }
    }
    if (!start) return std::nullopt;  // libab writes no record for such a task
    if (open != kNone) {
      const Event& b = ev[open];
      ++ended;
      if (xab_record_wanted(static_cast<int>(b.kind), b.get(Key::Src), b.get(Key::Tag)) && b.kind != Kind::SPAWN)
        add(ended, b.time, b.kind, XAB_REC_PENDING, {XAB_REC_V_PENDING(b.get(Key::Src), b.get(Key::Tag))}, openAt);
    }
    const TaskInfo& info = trace_.task(t);
    xab_rec_header& h = rec_.header;
    h.magic = XAB_REC_MAGIC;
    h.version = XAB_REC_VERSION;
    h.tid = info.tid;
    h.parent = info.parent;
    h.start_ns = *start;
    h.pid = info.pid;
    h.count = static_cast<std::uint32_t>(rec_.entries.size());
    h.last_seq = ended;
    h.exited = open == kNone && info.exit != ExitHow::None;
    std::string_view name = trace_.taskName(t);
    // The replay checks the program by name: a task whose first record
    // (name=) is missing cannot be checked.
    if (name.empty() || name.find_first_of(" \t\n") != std::string_view::npos)
      throw std::runtime_error("task " + formatTid(info.tid) +
                               " has no program name in the trace (name= of its first record): which program is it?");
    std::memcpy(h.name, name.data(), std::min(name.size(), sizeof h.name - 1));
    rec_.file = "trace task " + formatTid(info.tid);
    return std::move(rec_);
  }
};

}  // namespace

std::vector<RecordedTask> recordFromTrace(const Trace& trace) { return Converter(trace).run(); }

RecordSet RecordSet::open(const std::string& dirOrTrace) {
  std::error_code ec;
  if (std::filesystem::is_directory(dirOrTrace, ec)) return RecordSet(dirOrTrace);
  if (!std::filesystem::exists(dirOrTrace, ec))
    throw std::runtime_error(dirOrTrace + ": no such record directory or trace file");
  LoadResult loaded = loadTraceFile(dirOrTrace);
  const std::string& file = dirOrTrace;
  if (!loaded.trace || !loaded.fatal.empty())
    throw std::runtime_error(file + ": " + (loaded.fatal.empty() ? "cannot read it" : loaded.fatal));
  if (loaded.errorCount > 0)
    throw std::runtime_error(file + ": " + std::to_string(loaded.errorCount) + " malformed line(s), the first line " +
                             std::to_string(loaded.errors.front().line) + ": " + loaded.errors.front().reason +
                             "; a record made from it could be wrong");
  // One clock for every host's stamps, as abreplay --record's DIR/clocks
  // gives a record (a trace's clock records; one host: nothing changes).
  TimeBaseReport clocks;
  std::shared_ptr<const Trace> global = prepare(loaded.trace, TimeBase{}, clocks);
  try {
    return RecordSet(recordFromTrace(*global));
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(file + ": " + e.what());
  }
}

}  // namespace xab::replay
