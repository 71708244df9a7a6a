// Pack/unpack mismatches: what the receiver unpacked against what the
// sender packed (Beguelin, Xab, §4).
#include <xab/model/mismatch.h>

#include <xab/filter.h>

#include <algorithm>
#include <optional>
#include <span>

namespace xab {
namespace {

using Seq = std::vector<PackItem>;
using Items = std::span<const PackItem>;

bool itemKind(Kind k) { return k != Kind::PACKF && k != Kind::UNPACKF; }

// A pack's, unpack's, psend's or precv's record names its data (type= n=);
// PVM's own trace events (abrun) do not.
bool typed(const Event& e) {
  return e.has(slotOf(e.kind, e.phase, Key::Type)) && e.has(slotOf(e.kind, e.phase, Key::N));
}
PackItem typedItem(const Event& e) { return {e.get(Key::Type), e.get(Key::N)}; }

// A `filter` record that turns pack records off (xab/filter.h).
bool packFilter(const Event& e) { return (static_cast<std::uint32_t>(e.get(Key::Omit)) & XAB_FILTER_PACK) != 0; }

// What each sender packed before each send, in one flat store (no map or
// vector per message: a 10-million-event trace has a million messages).
struct PackedStore {
  struct Range {
    std::uint32_t begin = 0, size = 0;
    bool known = false;     // an initsend/mkbuf was seen: the pack list is complete
    bool filtered = false;  // the sender's pack records were filtered for it
  };
  std::vector<PackItem> items;
  std::vector<Range> ofMessage;  // indexed like MessageTable::messages
  std::uint64_t records = 0;     // pack records, and psend records with type= n=

  Items of(std::uint32_t m) const { return {items.data() + ofMessage[m].begin, ofMessage[m].size}; }

  void task(const Trace& trace, TaskIndex t, MessageLookup& lookup) {
    Seq packs;
    bool known = false;
    bool filtering = false, missed = false;  // packs are filtered now; some were since the buffer began
    const auto& ev = trace.events(t);
    for (std::uint32_t i = 0; i < ev.size(); ++i) {
      const Event& e = ev[i];
      if (e.phase != Phase::End) continue;
      if (e.kind == Kind::FILTER) {
        filtering = packFilter(e);
        missed = missed || filtering;
      } else if (e.kind == Kind::INITSEND || e.kind == Kind::MKBUF) {
        packs.clear();
        known = true;
        missed = filtering;
      } else if (e.kind == Kind::SETSBUF || e.kind == Kind::PACKF) {
        known = false;  // another buffer, or packs we cannot itemise
      } else if (isPack(e.kind) && itemKind(e.kind)) {
        if (!typed(e)) {  // PVM's own trace events (abrun) name no type or count
          known = false;
          continue;
        }
        ++records;
        packs.push_back({e.get(Key::Type), e.get(Key::N)});
      } else if (e.kind == Kind::PSEND) {  // its own buffer: the user's stays as it was
        std::int64_t m = lookup.messageOf({t, i});
        if (m < 0 || !typed(e)) continue;
        ++records;
        ofMessage[static_cast<std::size_t>(m)] = {static_cast<std::uint32_t>(items.size()), 1, true};
        items.push_back(typedItem(e));
      } else if (isMsgOut(e.kind) && missed) {
        std::int64_t m = lookup.messageOf({t, i});
        if (m >= 0) ofMessage[static_cast<std::size_t>(m)].filtered = true;
      } else if (isMsgOut(e.kind) && known) {
        std::int64_t m = lookup.messageOf({t, i});
        if (m < 0) continue;
        ofMessage[static_cast<std::size_t>(m)] = {static_cast<std::uint32_t>(items.size()),
                                                  static_cast<std::uint32_t>(packs.size()), true};
        items.insert(items.end(), packs.begin(), packs.end());
      }
    }
  }
};

// How the first unpack that disagrees disagrees, with its index.
struct Disagreement {
  std::uint32_t at = 0;
  PackDisagreement how = PackDisagreement::Differs;
  PackItem got, expected;
};

// Walks the unpacks over the packed items.  Returns the first unpack that
// disagrees, with why.
std::optional<Disagreement> compare(Items packed, Items unpacked) {
  std::size_t run = 0;
  std::int64_t used = 0;  // items of packed[run] already unpacked
  for (std::size_t k = 0; k < unpacked.size(); ++k) {
    const PackItem u = unpacked[k];
    auto at = static_cast<std::uint32_t>(k);
    if (u.n <= 0) continue;
    if (run >= packed.size()) return Disagreement{at, PackDisagreement::AfterEnd, u, {}};
    if (u.type == 0 || packed[run].type == 0) {  // strings are unpacked whole
      if (u.type != packed[run].type || used != 0 || u.n != packed[run].n)
        return Disagreement{at, PackDisagreement::Differs, u, packed[run]};
      ++run;
      continue;
    }
    std::int64_t need = u.n;
    while (need > 0) {
      if (run >= packed.size()) return Disagreement{at, PackDisagreement::PastEnd, u, {}};
      if (packed[run].type != u.type) return Disagreement{at, PackDisagreement::Differs, u, packed[run]};
      std::int64_t take = std::min<std::int64_t>(need, packed[run].n - used);
      need -= take;
      used += take;
      if (used >= packed[run].n) { ++run; used = 0; }
    }
  }
  return std::nullopt;
}

// pvm_precv copies the message's bytes into an array of one type: every
// item sent must be of that type (fewer or more items are fine: it takes
// what fits, as the call's returned length tells the program).
std::optional<Disagreement> comparePrecv(Items packed, PackItem asked) {
  for (const PackItem& p : packed)
    if (p.n > 0 && p.type != asked.type) return Disagreement{0, PackDisagreement::PrecvDiffers, asked, p};
  return std::nullopt;
}

// Walks each receiver's records: the unpacks after a receive, compared when
// the next receive (or the end) closes them.
struct Checker {
  const Trace& trace;
  const MessageTable& table;
  const PackedStore& packed;
  MismatchReport out;
  MessageLookup lookup{table};

  void close(std::int64_t m, EventRef recv, const Seq& unpacks, bool precv = false, bool filtered = false) {
    if (m < 0) return;
    if (filtered || packed.ofMessage[static_cast<std::size_t>(m)].filtered) {
      ++out.filteredReceives;
      return;
    }
    if (!packed.ofMessage[static_cast<std::size_t>(m)].known) return;
    auto mi = static_cast<std::uint32_t>(m);
    if (packed.of(mi).empty() && unpacks.empty()) return;  // nothing to compare: no pack records
    ++out.checked;
    auto diff = precv ? comparePrecv(packed.of(mi), unpacks.front()) : compare(packed.of(mi), unpacks);
    if (!diff) return;
    Items p = packed.of(mi);
    out.mismatches.push_back({mi, table.messages[mi].sender, recv.task, recv, Seq(p.begin(), p.end()), unpacks,
                              diff->at, diff->how, diff->got, diff->expected});
  }

  void task(TaskIndex t) {
    const auto& ev = trace.events(t);
    Seq unpacks;
    std::int64_t open = -1;  // message whose unpacks are being collected
    EventRef recv;
    bool filtering = false, missed = false;  // unpacks are filtered now; some of the open message's were
    for (std::uint32_t i = 0; i < ev.size(); ++i) {
      const Event& e = ev[i];
      if (e.kind == Kind::FILTER) {
        filtering = packFilter(e);
        missed = missed || filtering;
        continue;
      }
      if (e.phase != Phase::End) continue;
      bool got = gotMessage(e);
      // A receive that got nothing (trecv timed out, nrecv found none) ends
      // the last message's unpacks too: PVM freed its buffer.
      bool untyped = isUnpack(e.kind) && (!itemKind(e.kind) || !typed(e));  // unpacks we cannot itemise
      if (got || isMsgIn(e.kind) || e.kind == Kind::SETRBUF || untyped) {
        close(open, recv, unpacks, false, missed);
        open = -1;
        unpacks.clear();
        missed = filtering;
      }
      if (got && e.kind == Kind::PRECV) {  // unpacks its message itself
        if (!typed(e)) continue;
        ++out.records;
        close(lookup.messageOf({t, i}), {t, i}, Seq{typedItem(e)}, true);
      } else if (got) {
        open = lookup.messageOf({t, i});
        recv = {t, i};
      } else if (isUnpack(e.kind) && !untyped) {
        ++out.records;
        bool failed = e.hasRc() && e.rc < 0;  // unpacked nothing (failures.h reports it)
        if (open >= 0 && !failed) unpacks.push_back({e.get(Key::Type), e.get(Key::N)});
      }
    }
    close(open, recv, unpacks, false, missed);
  }
};

}  // namespace

MismatchReport findPackMismatches(const Trace& trace, const MessageTable& table) {
  PackedStore packed;
  packed.ofMessage.resize(table.messages.size());
  MessageLookup lookup(table);
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) packed.task(trace, t, lookup);
  Checker c{trace, table, packed, {}, MessageLookup(table)};
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) c.task(t);
  c.out.records += packed.records;
  c.out.packFiltered = (trace.omitted() & XAB_FILTER_PACK) != 0;
  // In the order of the messages, as before: stable for reports and tests.
  std::stable_sort(c.out.mismatches.begin(), c.out.mismatches.end(),
                   [](const PackMismatch& a, const PackMismatch& b) { return a.message < b.message; });
  return std::move(c.out);
}

}  // namespace xab
