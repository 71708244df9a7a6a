// Pack/unpack mismatches: what the receiver unpacked against what the
// sender packed (paper §4).
#include <xab/model/mismatch.h>

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace xab {
namespace {

using Seq = std::vector<PackItem>;

std::uint64_t key(EventRef r) { return (static_cast<std::uint64_t>(r.task) << 32) | r.index; }

bool gotMessage(const Event& e) {
  return isMsgIn(e.kind) && e.phase == Phase::End && e.hasRc() && e.rc > 0;
}

bool itemKind(Kind k) { return k != Kind::PACKF && k != Kind::UNPACKF; }

// One pass per task: what was packed before each send, and what was
// unpacked after each receive.
struct Sequences {
  std::unordered_map<std::uint64_t, Seq> packedAt;    // send record -> packs since initsend
  std::unordered_map<std::uint64_t, Seq> unpackedAt;  // receive record -> unpacks after it

  void task(const Trace& trace, TaskIndex t, const MessageTable& table) {
    Seq packs;
    bool known = false;  // an initsend/mkbuf was seen: the pack list is complete
    Seq* unpacks = nullptr;
    const auto& ev = trace.events(t);
    for (std::uint32_t i = 0; i < ev.size(); ++i) {
      const Event& e = ev[i];
      if (e.phase != Phase::End) continue;
      if (e.kind == Kind::INITSEND || e.kind == Kind::MKBUF) {
        packs.clear();
        known = true;
      } else if (e.kind == Kind::SETSBUF || e.kind == Kind::PACKF) {
        known = false;  // another buffer, or packs we cannot itemise
      } else if (isPack(e.kind) && itemKind(e.kind)) {
        packs.push_back({e.get(Key::Type), e.get(Key::N)});
      } else if (isMsgOut(e.kind) && e.kind != Kind::PSEND && known &&
                 table.messageOf({t, i}) >= 0) {
        packedAt[key({t, i})] = packs;
      }
      if (gotMessage(e)) {
        unpacks = e.kind == Kind::PRECV ? nullptr : &unpackedAt[key({t, i})];
      } else if (e.kind == Kind::SETRBUF || e.kind == Kind::UNPACKF) {
        unpacks = nullptr;
      } else if (isUnpack(e.kind) && unpacks) {
        unpacks->push_back({e.get(Key::Type), e.get(Key::N)});
      }
    }
  }
};

std::string item(PackItem p) {
  auto n = dataTypeName(p.type);
  std::string t = n.empty() ? "type " + std::to_string(p.type) : std::string(n);
  return t + " x" + std::to_string(p.n);
}

// Walks the unpacks over the packed items.  Returns the index of the first
// unpack that disagrees, with why.
std::optional<std::pair<std::uint32_t, std::string>> compare(const Seq& packed, const Seq& unpacked) {
  std::size_t run = 0;
  std::int64_t used = 0;  // items of packed[run] already unpacked
  for (std::size_t k = 0; k < unpacked.size(); ++k) {
    const PackItem u = unpacked[k];
    auto at = static_cast<std::uint32_t>(k);
    if (u.n <= 0) continue;
    if (run >= packed.size())
      return std::pair{at, "unpacks " + item(u) + " after the end of what was packed"};
    if (u.type == 0 || packed[run].type == 0) {  // strings are unpacked whole
      if (u.type != packed[run].type || used != 0 || u.n != packed[run].n)
        return std::pair{at, "unpacks " + item(u) + " where " + item(packed[run]) + " was packed"};
      ++run;
      continue;
    }
    std::int64_t need = u.n;
    while (need > 0) {
      if (run >= packed.size())
        return std::pair{at, "unpacks " + item(u) + " past the end of what was packed"};
      if (packed[run].type != u.type)
        return std::pair{at, "unpacks " + item(u) + " where " + item(packed[run]) + " was packed"};
      std::int64_t take = std::min<std::int64_t>(need, packed[run].n - used);
      need -= take;
      used += take;
      if (used >= packed[run].n) { ++run; used = 0; }
    }
  }
  return std::nullopt;
}

}  // namespace

std::string formatPackItems(const std::vector<PackItem>& items) {
  std::string out;
  for (const PackItem& p : items) {
    if (!out.empty()) out += ", ";
    out += item(p);
  }
  return out.empty() ? "(nothing)" : out;
}

MismatchReport findPackMismatches(const Trace& trace, const MessageTable& table) {
  Sequences seqs;
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) seqs.task(trace, t, table);
  MismatchReport out;
  for (std::uint32_t m = 0; m < table.messages.size(); ++m) {
    const Message& msg = table.messages[m];
    auto sent = seqs.packedAt.find(key(msg.send));
    if (sent == seqs.packedAt.end()) continue;
    for (const MessageReceive& r : msg.receives) {
      auto got = seqs.unpackedAt.find(key(r.recv));
      if (got == seqs.unpackedAt.end()) continue;
      ++out.checked;
      auto diff = compare(sent->second, got->second);
      if (!diff) continue;
      out.mismatches.push_back({m, msg.sender, r.receiver, r.recv, sent->second, got->second,
                                diff->first, diff->second});
    }
  }
  return out;
}

}  // namespace xab
