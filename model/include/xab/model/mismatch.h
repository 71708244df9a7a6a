// xab/model/mismatch.h -- pack/unpack mismatches (Beguelin, "Xab: A Tool for Monitoring PVM Programs", §4).
//
// PVM programs must unpack a message in the order it was packed.  For every
// matched message: the (type, n) sequence the sender packed since its last
// initsend/mkbuf, against what the receiver unpacked after the receive and
// before its next receive.  Items are compared one by one, so packing 8
// ints at once and unpacking 4 + 4 is fine; unpacking fewer items than were
// packed is fine too.  A psend sends its one typed array (type= n=); a
// precv takes a message into one typed array: every item sent must be of
// its type.  So send/mcast/bcast and psend are checked against unpacks and
// against precv alike.
#pragma once

#include <xab/model/messages.h>

#include <vector>

namespace xab {

struct PackItem {
  std::int32_t type = 0;  // PVM data type code
  std::int32_t n = 0;     // items (string length for str)
  friend bool operator==(PackItem, PackItem) = default;
};

// How the first call that disagrees disagrees (mismatch_text.h words it).
enum class PackDisagreement : std::uint8_t {
  AfterEnd,      // it unpacks `got` after the end of what was packed
  Differs,       // it unpacks `got` where `expected` was packed
  PastEnd,       // it unpacks `got`, more than was packed
  PrecvDiffers,  // pvm_precv receives `got` where `expected` was sent
};

struct PackMismatch {
  std::uint32_t message = 0;      // index into MessageTable::messages
  TaskIndex sender = 0, receiver = 0;
  EventRef recv;
  std::vector<PackItem> packed;
  std::vector<PackItem> unpacked;
  std::uint32_t partsAt = 0;      // index into `unpacked` of the first call that disagrees
  PackDisagreement disagreement = PackDisagreement::Differs;
  PackItem got;                   // what that call unpacked (or pvm_precv asked for)
  PackItem expected;              // what was packed there (Differs, PrecvDiffers)
};

struct MismatchReport {
  std::vector<PackMismatch> mismatches;
  // Receives compared: the sender's items are known (its packs since an
  // initsend/mkbuf, or a psend's type= n=) and there is something to
  // compare (the sender packed or the receiver unpacked something).
  std::uint64_t checked = 0;
  // Records that say what a message holds or what was taken from it: packs,
  // unpacks, psend and precv records with type= n=.  0: the trace cannot be
  // checked (PVM's own trace events under abrun carry no packs).
  std::uint64_t records = 0;
  // Some task omitted its pack records (filtered at the source, XAB_FILTER=pack):
  // its messages cannot be checked, whatever `records` says.
  bool packFiltered = false;
  // Receives not checked because the sender's packs or the receiver's
  // unpacks of that message were filtered at the source (a `filter`
  // record turned pack records off before or while they were made).
  std::uint64_t filteredReceives = 0;
};

MismatchReport findPackMismatches(const Trace& trace, const MessageTable& messages);

}  // namespace xab
