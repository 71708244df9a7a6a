// pvm_tracer.h -- abmon as PVM's own tracer (`abmon --pvm-tracer`).
//
// PVM 3.4's libpvm sends trace events (pvmtev.h: TEV_*) of every task the
// virtual machine traces to one registered tracer, and pvmd sends it the
// output of every task it started.  This file registers abmon for both
// (pvm_reg_tracer), reads those messages and writes them as the trace's own
// records: the same event names and fields where PVM gives them, nothing
// invented where it does not (no serial: sends and receives of such tasks
// carry `match=order`, and the model pairs them by order per sender,
// receiver and tag, docs/trace-format.md).  Output lines become `output`
// records.  Records of a task libab already reports are dropped, so a mixed
// program gives one record per call.
//
// The TEV stream is self-describing: the first event of each kind (entry
// and exit apart) a task sends is a descriptor naming each datum (a data
// id, TEV_DID_*) and its type; later events of that kind carry the values
// alone, in the descriptor's order.  Descriptors are kept per sender.
#ifndef XAB_ABMON_PVM_TRACER_H
#define XAB_ABMON_PVM_TRACER_H

#include <xab/traceformat/schema.h>

#include "output_lines.h"
#include "pvm_unpacker.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace xab::abmon {

class PvmTracer {
 public:
  // Tells the Monitor about a task PVM traces (so it watches its exit).
  using TaskSeen = std::function<void(int tid)>;
  // Whether libab reports this task itself.
  using IsLibabTask = std::function<bool(int tid)>;
  // The program name pvmd has for a task ("" if none): for a task pvmd did
  // not spawn, whose trace events name none.  orphan: pvmd said the task
  // has no parent (it enrolled from a shell).
  using NameOf = std::function<std::string(int tid, bool orphan)>;

  PvmTracer(int context, int traceTag, int outputTag, TaskSeen seen, IsLibabTask libab, NameOf nameOf = {});
  // A task's spawn has returned these tids (its spawn record's tids=).
  using Spawned = std::function<void(int parent, const std::vector<int>& tids)>;
  void onSpawn(Spawned f) { spawned_ = std::move(f); }

  // pvm_reg_tracer.  False if another tracer holds the virtual machine (or
  // the call failed): a message on stderr says so, abmon goes on with
  // libab's events alone.
  bool registerTracer();
  void unregisterTracer();
  bool registered() const { return registered_; }

  // Whether a message with this tag is the tracer's (trace or output).
  bool owns(int tag) const { return registered_ && (tag == traceTag_ || tag == outputTag_); }
  // The message in PVM's receive buffer `bufid`, sent by `src`, arrived at
  // recvNs: its records appended to `out`.
  void take(std::string& out, int bufid, int tag, int src, std::int64_t recvNs);
  // Output lines not ended by a newline yet, as they are, and records held
  // back (on stop).
  void flushOutput(std::string& out, std::int64_t nowNs);
  // The task has gone: its records held back, before its task.exit (and
  // its identity, if no record of it has told it yet).
  void flushTask(std::string& out, int tid, std::int64_t nowNs);
  // The clock of the records written of a task PVM traces (its host's), at
  // abmon's `nowNs`, for the records abmon writes of the task (task.exit):
  // nowNs plus the task's clock minus abmon's as its least delayed recent
  // event tells it, and never before its latest record.  None for a task
  // whose records are libab's, or none yet.
  std::optional<std::int64_t> taskClock(int tid, std::int64_t nowNs) const;
  // Its task.exit is written: if pvmd says later that a task with this tid
  // has started, that is a new task (PVM reuses tids), told anew.
  void taskEnded(int tid);
  // Whether the task's records are PVM's (its identity is the tracer's).
  bool traces(int tid) const;

  std::uint64_t events() const { return events_; }
  std::uint64_t tasks() const { return tasks_; }  // tasks with records written
  std::uint64_t dropped() const { return dropped_; }
  std::uint64_t bad() const { return bad_; }
  std::uint64_t forged() const { return forged_; }  // events or output not sent by whom they name

  // One datum of an event: its data id, and its values as ints or strings.
  struct Datum {
    int did = -1;
    std::vector<std::int64_t> ints;
    std::vector<std::string> strs;
  };

 private:
  struct Field {
    int did;
    int type;  // TEV_DATA_* | TEV_DATA_ARRAY
  };
  struct Event {
    int eid = 0;  // TEV_* | TEV_EVENT_ENTRY / TEV_EVENT_EXIT
    std::string name;
    std::vector<Datum> data;
    const Datum* find(int did) const;
  };

  void takeTrace(std::string& out, int src, std::int64_t recvNs);
  void takeOutput(std::string& out, int src, std::int64_t recvNs);
  bool readEvent(int src, int marker, Event& ev);
  bool readDatum(int type, Datum& d);
  bool skipDataIds();
  void write(std::string& out, const Event& ev, int src, std::int64_t recvNs);
  void writeRecord(std::string& out, const Event& ev, const Event& all, Kind kind, Phase phase, int tid,
                   std::int64_t recvNs);
  static bool looksUpAbmon(const Event& ev);
  void learnGroupServers();
  bool talksToGroupServer(const Event& ev) const;
  void writeIdentity(std::string& out, int tid, std::int64_t nowNs);
  void announce(int tid);
  void learnSpawned(int parent, const Datum& tids, const Datum* file);
  void writeOutputLine(std::string& out, int tid, std::int64_t ns, std::string_view text);

  int context_, traceTag_, outputTag_;
  TaskSeen seen_;
  IsLibabTask libab_;
  NameOf nameOf_;
  Spawned spawned_;
  bool registered_ = false;
  struct Descriptor {
    std::string name;  // PVM's name of the call ("send", "newtask")
    std::vector<Field> fields;
  };
  // sender -> (event id with entry/exit bits -> its descriptor)
  std::unordered_map<int, std::map<int, Descriptor>> descriptors_;
  // Whether a task's records are written: libab's own start looks like any
  // program's (mytid, parent, buffers), and libab's first events may come
  // after PVM's, so a task's records are held back until it either looks up
  // abmon's mailbox entry (libab: dropped) or makes a call libab would have
  // made after that (sends, receives, blocks, spawns, exits: written).
  enum class Origin : std::uint8_t { Unknown, Plain, Libab };
  struct Identity {
    std::string name;  // empty: PVM did not say
    std::optional<int> parent;
    bool written = false;
    bool named = false;  // its name= is written
    std::int64_t nameAskedNs = 0;  // when nameOf_ last found nothing
    Origin origin = Origin::Unknown;
    std::string held;  // records of an Unknown task
    bool ended = false;  // its task.exit is written
    // Of its records: the latest task time; the largest task time minus
    // receive time of those of the last kOffsetAgeNs (an event's date, less
    // the time it took to come: at most the task's clock minus abmon's),
    // and the receive time of the event that gave it.
    std::optional<std::int64_t> lastTaskNs;
    std::int64_t offsetNs = 0, offsetAtNs = 0;
  };
  void forget(int tid);
  void lookUpName(Identity& id, int tid, std::int64_t nowNs, bool now);
  static void noteStamp(Identity& id, std::int64_t taskNs, std::int64_t recvNs);
  bool speaksAsPvmd(int src) const;  // the test knob XAB_TEST_PVMD_TASK
  std::unordered_map<int, Identity> identities_;  // from pvmd's newtask / spntask
  std::unordered_set<int> announced_;  // tasks handed to TaskSeen (a reused tid: again, after forget)
  std::unordered_set<int> groupServers_;  // pvmgs: not recorded
  std::map<std::pair<int, int>, Event> lastEntry_;  // (task, TEV id): its latest entry event
  std::unordered_map<int, OutputLines> partialLines_;  // output of a task, after its last '\n'
  std::uint64_t events_ = 0, tasks_ = 0, dropped_ = 0, bad_ = 0, forged_ = 0;
  std::optional<PvmUnpacker> msg_;  // the message being read
};

}  // namespace xab::abmon

#endif
