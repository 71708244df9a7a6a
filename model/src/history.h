// history.h -- what a TraceSource keeps of a run beyond its window: the
// time index built as it reads, the spill file of an input that cannot be
// read again, and readRange, which reads a part of the run again through
// a TraceReader of its own (docs/model.md, "A run of any length").
// Used only by source.cpp.
#pragma once

#include <xab/model/reader.h>
#include <xab/model/source.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace xab {

class SpillFile;

class History {
 public:
  History();
  ~History();
  History(const History&) = delete;
  History& operator=(const History&) = delete;

  // At the first piece: read again from `rereadFd` (a descriptor of the
  // plain file, owned from now on; -1: none), or spill (a temporary file
  // in TMPDIR).  An entry about every `every` records.  "" or why the
  // spill file could not be made.
  std::string start(int rereadFd, bool spill, std::uint64_t every);
  bool started() const { return started_; }
  // A piece of text the reader has just read.
  void piece(std::string_view text, TraceReader& reader);
  // The input ended: a last line without '\n' is spilled too.
  void finish(TraceReader& reader);
  // After a cut: the task table readRange gives its traces.
  void publishTable(const TraceReader& reader);

  std::vector<IndexEntry> index() const;
  bool canRead() const;
  std::shared_ptr<const Trace> read(std::uint64_t from, std::uint64_t to, std::string* error) const;
  std::uint64_t spillBytes() const;

 private:
  void newEntry(TraceReader& reader);
  void spillFailed();

  bool started_ = false;
  std::uint64_t every_ = 1 << 20;
  int reread_ = -1;
  std::unique_ptr<SpillFile> spill_;
  mutable std::mutex mu_;  // guards what another thread reads: below
  std::vector<IndexEntry> index_;
  std::shared_ptr<const Trace> table_;
  std::uint64_t readable_ = 0;  // records of the run the file or spill file holds whole
  int readFd_ = -1;             // what read() reads: the spill file, the file, or none (-1)
  bool spilled_ = false;
};

}  // namespace xab
