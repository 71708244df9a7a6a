// TraceBuilder: the mutable side of a Trace, used by the reader only.
#pragma once

#include <xab/model/trace.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace xab {

class TraceBuilder {
 public:
  TraceBuilder();

  TraceHeader& header() { return trace_.header_; }
  const Trace& trace() const { return trace_; }

  TaskIndex taskFor(Tid tid);
  StrId intern(std::string_view s);
  ListId addList(std::vector<Tid> tids);

  // instance < 0: the next of that name (spawn order); an importer may give
  // it (picl2ab: the PICL node number).
  void setName(TaskIndex t, StrId name, std::int32_t instance = -1);
  TaskInfo& info(TaskIndex t) { return trace_.tasks_[t]; }

  void append(TaskIndex t, const Event& e);
  void appendMonitor(const Event& e);
  std::uint32_t nextSeq() const { return seq_; }

  // An immutable copy sharing every full chunk.
  std::shared_ptr<const Trace> freeze() const;
  std::shared_ptr<const Trace> take();

 private:
  void noteTime(TimeNs t);

  Trace trace_;
  std::unordered_map<std::string_view, StrId> interned_;  // views into trace_.strings_
  std::unordered_map<StrId, std::int32_t> perName_;       // tasks seen per name
  std::uint32_t seq_ = 0;
  Tid lastTid_ = 0;
  TaskIndex lastTask_ = 0;
  bool haveLast_ = false;
};

// Parses one line (without its '\n') into the builder.  Returns "" or the
// reason the line was refused; sets `fatal` for a newer format version.
class LineParser {
 public:
  explicit LineParser(TraceBuilder& b) : b_(b) {}
  std::string parse(std::string_view line, bool& fatal);

 private:
  struct Identity {
    StrId name = -1, host = -1;
    Tid parent = kNoTid;
    std::int32_t lang = -1, pid = 0, instance = -1;
    bool hasParent = false, hasLang = false, hasPid = false;
  };

  std::string header(std::string_view line, bool& fatal);
  std::string record(std::string_view line);
  std::string head(std::string_view& rest, Event& e, Tid& tid);
  std::string fields(std::string_view rest, Event& e, Identity& id);
  bool slotValue(SlotType type, std::string_view val, std::int32_t& v);
  bool identityField(std::string_view key, std::string_view val, Identity& id);

  TraceBuilder& b_;
  std::vector<Tid> listScratch_;
  std::string scratch_;  // unescaped strings; reused so a line allocates nothing
};

}  // namespace xab
