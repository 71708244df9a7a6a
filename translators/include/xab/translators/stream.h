// xab/translators/stream.h -- an xab trace handed to a writer record by
// record, in the order the records were read, in one pass: memory is
// bounded by the number of tasks and of calls still open, not by the
// trace's length.  ab2json, ab2otf2 and ab2au write this way, from a file,
// a pipe, or (the viewer's export) a whole Trace in memory: one code path.
//
// The input is read in pieces of about 1 MB; each piece becomes a small
// Trace of its own (TraceReader::take), its records are handed over in
// arrival order, then it is dropped.  A blocking call whose begin record is
// in one piece and whose end is in a later one keeps its begin record as a
// one-record Trace of its own, a few hundred bytes.
#pragma once

#include <xab/translators/io.h>

#include <xab/model/trace.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace xab::tr {

// A task as the stream knows it so far.  Index = order of first
// appearance, as a record's task or as a peer a record names.
struct StreamTask {
  Tid tid = 0;
  std::string name;             // "" until a record names the task
  std::int32_t instance = 0;    // order among the tasks of that name
  std::string host;             // "" until a record says
  bool hasRecords = false;      // false: only named as a peer so far
  TimeNs lastTime = 0;          // task clock of its last record
  // "(worker, 2)" as Trace::label shows a task, "(t40002)" without a name.
  std::string label() const;
};

// One record: the event, the Trace holding its strings and lists (a piece
// of the input, or the whole trace), and its task in TraceStream::tasks().
struct Record {
  const Trace& trace;
  const Event& e;
  TaskIndex task;
};

// A call: a blocking call's begin and end records as one, or a record on
// its own (begin and end the same).  An unfinished call (still blocked when
// the trace ended, or its end never came) has end == begin and lasts until
// the task's next record, or its last.
struct StreamCall {
  Record begin;
  Record end;
  TimeNs start = 0, finish = 0;
  bool unfinished = false;
};

class TraceStream;

// What a streaming writer implements.  The stream is passed to each call
// for the task table, the origin and the times seen so far.
class StreamWriter {
 public:
  virtual ~StreamWriter() = default;
  virtual void record(TraceStream&, const Record&) {}  // every task record, in arrival order
  virtual void call(TraceStream&, const StreamCall&) {} // every call, once complete
  virtual void end(TraceStream&) {}                     // after the last record
};

class TraceStream {
 public:
  explicit TraceStream(StreamWriter& w);
  ~TraceStream();
  TraceStream(const TraceStream&) = delete;
  TraceStream& operator=(const TraceStream&) = delete;

  // The records of one piece of the input, in arrival order (Event::seq).
  void feed(const Trace& piece);
  // End of input: calls still open are handed over unfinished, then end().
  void finish();

  const std::vector<StreamTask>& tasks() const { return tasks_; }
  const StreamTask& task(TaskIndex t) const { return tasks_[t]; }
  std::optional<TaskIndex> find(Tid tid) const;
  // The index of a task a record names as a peer; it is added (without
  // records) when not seen yet.
  TaskIndex mention(Tid tid);

  const TraceHeader& header() const { return header_; }
  TimeNs origin() const { return origin_; }        // time of the first record read
  TimeNs firstTime() const { return first_; }      // min and max over records read
  TimeNs lastTime() const { return last_; }
  std::uint64_t records() const { return records_; }

 private:
  // A begin record waiting for its end.  While its piece is being fed it
  // points into the piece; when the piece is done, the record is kept as a
  // one-record Trace of its own (`kept`).
  struct Open {
    bool pending = false;
    const Trace* trace = nullptr;
    Event e{};
    TaskIndex pieceTask = 0;
    std::uint32_t index = 0;
    std::shared_ptr<const Trace> kept;
  };
  void noteTime(TimeNs t);
  void assemble(const Record& r, TaskIndex pieceTask, std::uint32_t index);
  void flushOpen(TaskIndex t, TimeNs until);
  void keepOpenCalls(const Trace& piece);

  StreamWriter& w_;
  TraceHeader header_;
  std::vector<StreamTask> tasks_;
  std::unordered_map<Tid, TaskIndex> byTid_;
  std::unordered_map<std::string, std::int32_t> perName_;
  std::deque<Open> open_;              // a deque: writers add tasks (mention) while one is in use
  std::vector<std::uint32_t> order_;   // scratch: task of each seq in a piece
  bool any_ = false;
  TimeNs origin_ = 0, first_ = 0, last_ = 0;
  std::uint64_t records_ = 0;
};

// Reads INPUT in one pass, handing each piece to `s` as it is read, with
// the progress bar (from bytes read) and the messages of readTrace:
// "FILE:LINE: reason" for a malformed line.  What was read before a
// malformed line has been handed over.  Does not call s.finish() when it
// fails.  Returns kExitOk, kExitUsage (I/O) or kExitBadInput.
int streamInput(const InputOptions& o, TraceStream& s, std::uint64_t* bytes = nullptr);

// The destinations a send record names: send/psend one, mcast and bcast
// their dst= list; none for a bcast of an older trace without dst= (see
// GroupMembers).  xab::sendDestinations is the rule.
std::vector<Tid> namedDestinations(const Trace& trace, const Event& send);

// A receive that got a message naming its sender and its serial (a send
// is model/messages.h's sentMessage).
bool isGotMessage(const Event& e);

// Members of PVM groups as the records read so far tell (joingroup,
// lvgroup).  Only for older traces: a bcast record names its destinations
// (dst=) since the format recorded them; without dst= it went to the
// group's other members at the time; the writers ask for them a window of records
// after the bcast was read, so that members whose records reach abmon a
// little later (abmon writes each task's records in batches) are counted.
class GroupMembers {
 public:
  void record(const TraceStream& s, const Record& r);
  // The group's members other than `self`.
  std::vector<Tid> others(const std::string& group, Tid self) const;

 private:
  std::unordered_map<std::string, std::vector<Tid>> members_;
};

// How many records after a bcast its destinations are taken (see above).
inline constexpr std::uint64_t kBcastWindow = 1 << 16;

// A bcast's group name when its destinations must be inferred (an older
// trace without dst=); "" for any other record, or a bcast with dst=.
std::string bcastGroup(const Record& r);

}  // namespace xab::tr
