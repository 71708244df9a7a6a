// ab2json's core: an xab trace as Chrome trace-event JSON, written as it
// goes (no document is built in memory).  Times are microseconds after the
// trace's first record, with nanosecond decimals.
#include <xab/translators/calls.h>
#include <xab/translators/json.h>
#include <xab/translators/timeline.h>

#include <xab/model/messages.h>

#include <algorithm>
#include <map>
#include <vector>

namespace xab::tr {

void putJsonString(Sink& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.put('"');
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out.put('\\');
      out.put(ch);
    } else if (c < 0x20 || c >= 0x80) {
      out.put("\\u00");
      out.put(kHex[c >> 4]);
      out.put(kHex[c & 15]);
    } else {
      out.put(ch);
    }
  }
  out.put('"');
}

namespace {

class JsonWriter {
 public:
  JsonWriter(const Trace& trace, Sink& out)
      : t_(trace), out_(out), mt_(matchMessages(trace)), origin_(trace.firstTime()) {
    flowBase_.resize(mt_.messages.size());
    std::uint64_t n = 0;
    for (std::size_t m = 0; m < mt_.messages.size(); ++m) {
      flowBase_[m] = n;
      n += mt_.messages[m].receives.size();
    }
    for (TaskIndex i = 0; i < t_.taskCount(); ++i) {
      StrId h = t_.task(i).host;
      if (!pidOfHost_.count(h)) pidOfHost_.emplace(h, static_cast<int>(pidOfHost_.size()) + 1);
    }
  }

  JsonWriteStats run() {
    out_.put("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    metadata();
    for (TaskIndex i = 0; i < t_.taskCount(); ++i)
      forEachCall(t_, i, [&](const Call& c) { call(i, c); });
    out_.put("\n],\"otherData\":{\"producer\":\"ab2json\",\"tasks\":");
    out_.putInt(static_cast<std::int64_t>(t_.taskCount()));
    out_.put(",\"origin_ns\":");
    out_.putInt(origin_);
    out_.put("}}\n");
    return stats_;
  }

 private:
  int pid(TaskIndex i) const { return pidOfHost_.at(t_.task(i).host); }

  void begin(std::string_view ph, TaskIndex i, TimeNs time) {
    out_.put(first_ ? "" : ",\n");
    first_ = false;
    out_.put("{\"ph\":\"");
    out_.put(ph);
    out_.put("\",\"pid\":");
    out_.putInt(pid(i));
    out_.put(",\"tid\":");
    out_.putInt(t_.task(i).tid);
    out_.put(",\"ts\":");
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

  void metadata() {
    for (auto& [host, p] : pidOfHost_) {
      out_.put(first_ ? "" : ",\n");
      first_ = false;
      out_.put("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
      out_.putInt(p);
      out_.put(",\"args\":{\"name\":");
      putJsonString(out_, host < 0 ? std::string("host ?") : "host " + std::string(t_.str(host)));
      out_.put("}}");
    }
    for (TaskIndex i = 0; i < t_.taskCount(); ++i) {
      out_.put(",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
      out_.putInt(pid(i));
      out_.put(",\"tid\":");
      out_.putInt(t_.task(i).tid);
      out_.put(",\"args\":{\"name\":");
      putJsonString(out_, t_.label(i) + " " + formatTid(t_.task(i).tid));
      out_.put("}}");
    }
  }

  void call(TaskIndex i, const Call& c) {
    const Event& end = t_.events(i)[c.end];
    switch (c.kind) {
      case Kind::MARK: return instant(i, c.start, t_.str(end.get(Key::Text, -1)), end);
      case Kind::TASK_EXIT: return instant(i, c.start, "task exit", end);
      case Kind::ABMON_LOST: return instant(i, c.start, "events lost", end);
      case Kind::TIDS: return;
      default: break;
    }
    // A call that took no time lasts 1 ns: a flow binds to the slice that
    // encloses its timestamp, and an empty slice encloses nothing.
    Call shown = c;
    shown.finish = std::max(c.finish, c.start + 1);
    begin("X", i, c.start);
    out_.put(",\"dur\":");
    micros(shown.finish - shown.start);
    key("name");
    sliceName(end);
    out_.put(",\"cat\":\"pvm\",\"args\":{");
    args(t_.events(i)[c.begin], end, c.unfinished);
    out_.put("}}");
    ++stats_.slices;
    flows(i, shown);
  }

  // The call's name; barriers and collectives say which group.
  void sliceName(const Event& e) {
    if (e.kind != Kind::BARRIER && !isCollective(e.kind)) return putJsonString(out_, callName(t_, e));
    std::string group = e.get(Key::Group, -1) >= 0 ? std::string(t_.str(e.get(Key::Group))) : "";
    if (e.kind == Kind::BARRIER) return putJsonString(out_, "barrier wait (" + group + ")");
    putJsonString(out_, std::string(kindName(e.kind)) + " (" + group + ")");
  }

  void instant(TaskIndex i, TimeNs time, std::string_view name, const Event& e) {
    begin("i", i, time);
    out_.put(",\"s\":\"t\"");
    key("name");
    putJsonString(out_, name);
    out_.put(",\"cat\":\"pvm\",\"args\":{");
    args(e, e, false);
    out_.put("}}");
    ++stats_.instants;
  }

  // The end record's fields, then the begin record's that the end lacks.
  void args(const Event& b, const Event& e, bool unfinished) {
    bool firstArg = true;
    auto sep = [&] {
      if (!firstArg) out_.put(',');
      firstArg = false;
    };
    const Event& main = unfinished ? b : e;
    auto slots = kindSlots(main.kind, main.phase);
    for (std::size_t s = 0; s < slots.size(); ++s)
      if (main.has(static_cast<int>(s))) { sep(); value(slots[s], main.a[s]); }
    if (&b != &e && !unfinished) {
      auto bs = kindSlots(b.kind, b.phase);
      for (std::size_t s = 0; s < bs.size(); ++s)
        if (b.has(static_cast<int>(s)) && slotOf(e.kind, e.phase, bs[s].key) < 0) { sep(); value(bs[s], b.a[s]); }
    }
    if (main.hasRc() && !unfinished) {
      sep();
      out_.put("\"rc\":");
      if (kindRcType(main.kind) == 't') {
        out_.put('"');
        out_.putTid(main.rc);
        out_.put('"');
      } else {
        out_.putInt(main.rc);
      }
    }
    if (unfinished) { sep(); out_.put("\"unfinished\":true"); }
  }

  void value(const SlotSpec& spec, std::int32_t v) {
    out_.put('"');
    out_.put(spec.key);  // keys come from events.h: plain ASCII
    out_.put("\":");
    switch (spec.type) {
      case SlotType::Tid:
        out_.put('"');
        out_.putTid(v);
        out_.put('"');
        break;
      case SlotType::String: putJsonString(out_, t_.str(v)); break;
      case SlotType::DataType: {
        std::string_view n = dataTypeName(v);
        putJsonString(out_, n.empty() ? std::to_string(v) : std::string(n));
        break;
      }
      case SlotType::List: {
        std::string s;
        for (Tid x : t_.list(v)) s += (s.empty() ? "" : ",") + formatTid(x);
        putJsonString(out_, s);
        break;
      }
      default: out_.putInt(v); break;
    }
  }

  // A flow start on each send, one per receive of its message; a flow end
  // on each receive that got a message sent in the trace.
  void flows(TaskIndex i, const Call& c) {
    EventRef ref{i, c.end};
    const Event& e = t_.event(ref);
    if (isMsgOut(e.kind)) {
      std::int64_t m = mt_.messageOf(ref);
      if (m < 0 || !(mt_.messages[static_cast<std::size_t>(m)].send == ref)) return;
      const Message& msg = mt_.messages[static_cast<std::size_t>(m)];
      for (std::size_t k = 0; k < msg.receives.size(); ++k) flow("s", i, c.start, flowBase_[m] + k + 1);
    } else if (isReceiveEnd(e) && !c.unfinished) {
      std::int64_t m = receivedMessage(mt_, ref);
      if (m < 0) return;
      const Message& msg = mt_.messages[static_cast<std::size_t>(m)];
      for (std::size_t k = 0; k < msg.receives.size(); ++k)
        if (msg.receives[k].recv == ref) {
          // Inside the receive's slice, so the arrow binds to it.
          flow("f", i, c.finish - 1, flowBase_[m] + k + 1);
          ++stats_.flows;
        }
    }
  }

  void flow(std::string_view ph, TaskIndex i, TimeNs time, std::uint64_t id) {
    begin(ph, i, time);
    out_.put(",\"name\":\"message\",\"cat\":\"message\",\"id\":");
    out_.putInt(static_cast<std::int64_t>(id));
    if (ph == "f") out_.put(",\"bp\":\"e\"");
    out_.put('}');
  }

  const Trace& t_;
  Sink& out_;
  MessageTable mt_;
  TimeNs origin_;
  std::vector<std::uint64_t> flowBase_;
  std::map<StrId, int> pidOfHost_;  // ordered: the same output every run
  bool first_ = true;
  JsonWriteStats stats_;
};

}  // namespace

JsonWriteStats writeJson(const Trace& trace, Sink& out) { return JsonWriter(trace, out).run(); }

}  // namespace xab::tr
