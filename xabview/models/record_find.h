// record_find.h -- Find and Go to: the record a search or a time names.
//
// A query is words, every one of which a record must match (case
// insensitive): a word matches when it is part of the task's name
// ("worker", "(worker, 3)"), its tid ("t40003"), the record's event
// ("recv", "send.begin") or its fields as the event log writes them; a word
// with '=' ("tag=2", "dst=t40005") is one whole field.  libab's own records
// (clock, cost, flush) are searched only when asked for, as in the log.
//
// Positions are the replay's: position p shows records 0..p-1, so finding
// record i means going to position i+1 (it becomes the current record).
// Next searches after the current record, Previous before it; both wrap
// around the trace's ends once.
#pragma once

#include "snapshot.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <string>
#include <vector>

namespace xab::view {

class RecordQuery {
 public:
  RecordQuery(const ViewSnapshot& s, const QString& text, bool libabRecords = false);
  bool empty() const { return words_.empty(); }
  bool matches(std::size_t record) const;  // a record index in arrival order
  bool matches(const OrderEntry& e) const { return matches(e, s_.event(e)); }
  bool matches(const OrderEntry& e, const Event& ev) const { return matches(e, RecordRef(ev)); }
  // r: the record e names; its event is decoded only when its task and
  // call do not decide.
  bool matches(const OrderEntry& e, const RecordRef& r) const;

 private:
  std::uint32_t otherNameWords(const Event& e) const;  // the words an unknown event's name holds

  const ViewSnapshot& s_;
  // Lower case UTF-8; a word with '=' is kept as " key=value " (a whole field).
  std::vector<std::string> words_;
  bool libab_;
  std::uint32_t all_ = 0;  // a bit per word
  // Per task (the last: abmon's records), the words its name or tid holds;
  // per call and phase, the words its event name holds.
  std::vector<std::uint32_t> taskWords_;
  std::vector<std::uint32_t> kindWords_;
  mutable std::string fields_;  // the record's fields, reused: no allocation per record
};

struct FindResult {
  std::size_t position = 0;  // where the replay goes: the record found + 1
  bool wrapped = false;      // found past an end of the trace, from the other end
};

// The next matching record after position's current one (wrapping), or the
// previous one before it; nothing when no record matches.
std::optional<FindResult> findRecord(const ViewSnapshot& s, const RecordQuery& q, std::size_t position, bool forward);

// The position whose current record is the first, in arrival order, at or
// after time `t` (abmon's own records aside); the end when none is.
std::size_t positionAtTime(const ViewSnapshot& s, TimeNs t);

}  // namespace xab::view
