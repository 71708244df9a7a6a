// ab2json's core: an xab trace as Chrome trace-event JSON, written as the
// records are read (stream.h): each call when its end record comes, the
// process and thread names at the end, when all are known.  Times are
// microseconds after the first record read, with nanosecond decimals.
#include <xab/model/json_string.h>
#include <xab/model/messages.h>
#include <xab/translators/calls.h>
#include <xab/translators/json.h>
#include <xab/translators/stream.h>

#include <algorithm>
#include <vector>

namespace xab::tr {

void putJsonString(Sink& out, std::string_view s) { writeJsonString(out, s); }

namespace {

class JsonWriter final : public StreamWriter {
 public:
  explicit JsonWriter(Sink& out) : out_(out) { out_.put("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"); }

  void call(TraceStream& s, const StreamCall& c) override {
    origin_ = s.origin();
    const Event& end = c.end.e;
    switch (end.kind) {
      case Kind::MARK: return instant(s, c, c.end.trace.str(end.get(Key::Text, -1)));
      case Kind::TASK_EXIT: return instant(s, c, "task exit");
      case Kind::ABMON_LOST: return instant(s, c, "events lost");
      case Kind::TIDS: return;
      default: break;
    }
    // A call that took no time lasts 1 ns: a flow binds to the slice that
    // encloses its timestamp, and an empty slice encloses nothing.
    TimeNs finish = std::max(c.finish, c.start + 1);
    begin(s, "X", c.end.task, c.start);
    out_.put(",\"dur\":");
    micros(finish - c.start);
    key("name");
    sliceName(c.end);
    out_.put(",\"cat\":\"pvm\",\"args\":{");
    args(c.begin, c.end, c.unfinished);
    out_.put("}}");
    ++stats_.slices;
    flows(s, c, finish);
  }

  void end(TraceStream& s) override {
    metadata(s);
    out_.put("\n],\"otherData\":{\"producer\":\"ab2json\",\"tasks\":");
    std::int64_t withRecords = 0;
    for (const StreamTask& t : s.tasks()) withRecords += t.hasRecords;
    out_.putInt(withRecords);
    out_.put(",\"origin_ns\":");
    out_.putInt(s.origin());
    out_.put("}}\n");
  }

  const JsonWriteStats& stats() const { return stats_; }

 private:
  // Hosts are processes numbered in order of appearance; a task keeps the
  // number it got at its first call.
  int pid(const TraceStream& s, TaskIndex t) {
    if (t >= pidOfTask_.size()) pidOfTask_.resize(t + 1, 0);
    if (pidOfTask_[t]) return pidOfTask_[t];
    const std::string& host = s.task(t).host;
    auto it = std::find(hosts_.begin(), hosts_.end(), host);
    if (it == hosts_.end()) it = hosts_.insert(hosts_.end(), host);
    return pidOfTask_[t] = static_cast<int>(it - hosts_.begin()) + 1;
  }

  void separate() {
    out_.put(first_ ? "" : ",\n");
    first_ = false;
  }

  // {"ph":"X","pid":1,"tid":262146,"ts":...; the pid and tid part is made
  // once per task.
  void begin(const TraceStream& s, std::string_view ph, TaskIndex t, TimeNs time) {
    separate();
    out_.put("{\"ph\":\"");
    out_.put(ph);
    if (t >= threadPart_.size()) threadPart_.resize(t + 1);
    std::string& part = threadPart_[t];
    if (part.empty())
      part = "\",\"pid\":" + std::to_string(pid(s, t)) + ",\"tid\":" + std::to_string(s.task(t).tid) + ",\"ts\":";
    out_.put(part);
    micros(time - origin_);
  }
  void micros(TimeNs ns) {
    if (ns < 0) {
      out_.put('-');
      ns = -ns;
    }
    out_.putInt(ns / 1000);
    char frac[4] = {'.', char('0' + ns / 100 % 10), char('0' + ns / 10 % 10), char('0' + ns % 10)};
    out_.put(std::string_view(frac, 4));
  }
  void key(std::string_view k) {
    out_.put(",\"");
    out_.put(k);
    out_.put("\":");
  }

  // At the end, when every task's name and host are known.
  void metadata(const TraceStream& s) {
    for (TaskIndex t = 0; t < s.tasks().size(); ++t)
      if (s.task(t).hasRecords) pid(s, t);
    for (std::size_t h = 0; h < hosts_.size(); ++h) {
      separate();
      out_.put("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
      out_.putInt(static_cast<std::int64_t>(h) + 1);
      out_.put(",\"args\":{\"name\":");
      putJsonString(out_, hosts_[h].empty() ? std::string("host ?") : "host " + hosts_[h]);
      out_.put("}}");
    }
    for (TaskIndex t = 0; t < s.tasks().size(); ++t) {
      if (!s.task(t).hasRecords) continue;
      separate();
      out_.put("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
      out_.putInt(pid(s, t));
      out_.put(",\"tid\":");
      out_.putInt(s.task(t).tid);
      out_.put(",\"args\":{\"name\":");
      putJsonString(out_, s.task(t).label() + " " + formatTid(s.task(t).tid));
      out_.put("}}");
    }
  }

  // The call's name; barriers and collectives say which group.
  void sliceName(const Record& r) {
    const Event& e = r.e;
    if (e.kind != Kind::BARRIER && !isCollective(e.kind)) return putJsonString(out_, callName(r.trace, e));
    std::string group = e.get(Key::Group, -1) >= 0 ? std::string(r.trace.str(e.get(Key::Group))) : "";
    if (e.kind == Kind::BARRIER) return putJsonString(out_, "barrier wait (" + group + ")");
    putJsonString(out_, std::string(kindName(e.kind)) + " (" + group + ")");
  }

  void instant(const TraceStream& s, const StreamCall& c, std::string_view name) {
    begin(s, "i", c.end.task, c.start);
    out_.put(",\"s\":\"t\"");
    key("name");
    putJsonString(out_, name);
    out_.put(",\"cat\":\"pvm\",\"args\":{");
    args(c.end, c.end, false);
    out_.put("}}");
    ++stats_.instants;
  }

  // The end record's fields, then the begin record's that the end lacks.
  void args(const Record& b, const Record& e, bool unfinished) {
    bool firstArg = true;
    auto sep = [&] {
      if (!firstArg) out_.put(',');
      firstArg = false;
    };
    const Record& main = unfinished ? b : e;
    auto slots = kindSlots(main.e.kind, main.e.phase);
    for (std::size_t s = 0; s < slots.size(); ++s)
      if (main.e.has(static_cast<int>(s))) { sep(); value(main.trace, slots[s], main.e.a[s]); }
    if (&b.e != &e.e && !unfinished) {
      auto bs = kindSlots(b.e.kind, b.e.phase);
      for (std::size_t s = 0; s < bs.size(); ++s)
        if (b.e.has(static_cast<int>(s)) && slotOf(e.e.kind, e.e.phase, bs[s].key) < 0) { sep(); value(b.trace, bs[s], b.e.a[s]); }
    }
    if (main.e.hasRc() && !unfinished) {
      sep();
      out_.put("\"rc\":");
      if (kindRcType(main.e.kind) == 't') {
        out_.put('"');
        out_.putTid(main.e.rc);
        out_.put('"');
      } else {
        out_.putInt(main.e.rc);
      }
    }
    if (unfinished) { sep(); out_.put("\"unfinished\":true"); }
  }

  void value(const Trace& t, const SlotSpec& spec, std::int32_t v) {
    out_.put('"');
    out_.put(spec.key);  // keys come from events.h: plain ASCII
    out_.put("\":");
    switch (spec.type) {
      case SlotType::Tid:
        out_.put('"');
        out_.putTid(v);
        out_.put('"');
        break;
      case SlotType::String: putJsonString(out_, t.str(v)); break;
      case SlotType::DataType: {
        std::string_view n = dataTypeName(v);
        putJsonString(out_, n.empty() ? std::to_string(v) : std::string(n));
        break;
      }
      case SlotType::List: {
        std::string s;
        for (Tid x : t.list(v)) s += (s.empty() ? "" : ",") + formatTid(x);
        putJsonString(out_, s);
        break;
      }
      default: out_.putInt(v); break;
    }
  }

  // A message is one flow, its id made of (sender tid, serial), which both
  // ends know: a start at the send's slice, an end inside each receive's
  // slice (an mcast's or bcast's flow has several ends).
  void flows(const TraceStream& s, const StreamCall& c, TimeNs finish) {
    const Event& e = c.end.e;
    if (sentMessage(e) && e.get(Key::Serial) > 0) {
      flow(s, "s", c.end.task, c.start, s.task(c.end.task).tid, e.get(Key::Serial));
    } else if (isGotMessage(e) && !c.unfinished) {
      flow(s, "f", c.end.task, finish - 1, e.get(Key::Src), e.get(Key::Serial));
      ++stats_.flows;
    }
  }

  void flow(const TraceStream& s, std::string_view ph, TaskIndex t, TimeNs time, Tid sender, std::int32_t serial) {
    begin(s, ph, t, time);
    // A hex string: Perfetto reads "0x..." ids as 64-bit numbers, and no
    // JavaScript viewer rounds it.  The serial takes 8 digits.
    char id[24];
    char* p = id + sizeof id;
    *--p = '"';
    auto x = static_cast<std::uint32_t>(serial);
    for (int i = 0; i < 8; ++i, x >>= 4) *--p = "0123456789abcdef"[x & 15];
    x = static_cast<std::uint32_t>(sender);
    do *--p = "0123456789abcdef"[x & 15];
    while (x >>= 4);
    *--p = 'x';
    *--p = '0';
    *--p = '"';
    out_.put(",\"name\":\"message\",\"cat\":\"message\",\"id\":");
    out_.put(std::string_view(p, static_cast<std::size_t>(id + sizeof id - p)));
    if (ph == "f") out_.put(",\"bp\":\"e\"");
    out_.put('}');
  }

  Sink& out_;
  TimeNs origin_ = 0;
  std::vector<std::string> hosts_;     // pid - 1 -> host
  std::vector<int> pidOfTask_;
  std::vector<std::string> threadPart_;
  bool first_ = true;
  JsonWriteStats stats_;
};

}  // namespace

struct JsonStream::Impl {
  explicit Impl(Sink& out) : writer(out), stream(writer) {}
  JsonWriter writer;
  TraceStream stream;
};

JsonStream::JsonStream(Sink& out) : impl_(std::make_unique<Impl>(out)) {}
JsonStream::~JsonStream() = default;
TraceStream& JsonStream::stream() { return impl_->stream; }
JsonWriteStats JsonStream::finish() {
  impl_->stream.finish();
  return impl_->writer.stats();
}

JsonWriteStats writeJson(const Trace& trace, Sink& out) {
  JsonStream js(out);
  js.stream().feed(trace);
  return js.finish();
}

}  // namespace xab::tr
