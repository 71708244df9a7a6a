// picl2ab's ordering passes: each node's records at one time stamp put in
// nesting order with entries linked to their exits, and receives matched
// to sends per (source, destination, tag) in order (a foreign file may
// hold a receive before its send).
#include "picl_records.h"

#include <deque>
#include <map>
#include <tuple>
#include <utility>

namespace xab::tr::piclrec {
namespace {

// A node's records at one time stamp, put in an order that nests, and its
// entries linked to their exits.  MPICL merges the nodes' files by time
// only, so at equal times one node's records may come in any order: a
// barrier's exit after the next barrier's entry, a send's exit before its
// entry.  Longer runs of equal times than kMaxGroup keep the file's order
// (the reordering is quadratic in the run's length).
class Nester {
 public:
  static constexpr std::size_t kMaxGroup = 256;
  Nester(std::vector<Rec>& recs, std::size_t nodes) : recs_(recs), nodes_(nodes) {}

  // Records come in file order (one pass over memory: a pass per node
  // would jump through the whole file for each).
  void add(std::uint32_t i, std::size_t node) {
    Node& n = nodes_[node];
    if (!n.run.empty() && recs_[i].time != recs_[n.run.front()].time) flush(n);
    n.run.push_back(i);
  }
  void finish() {
    for (Node& n : nodes_) flush(n);
  }

 private:
  struct Node {
    std::vector<std::uint32_t> run;   // its records at the current time stamp, in file order
    std::vector<std::uint32_t> open;  // entries not yet exited, innermost last
    std::vector<std::pair<std::int32_t, int>> openCount;  // code -> entries of it in open (few: a flat list)
  };

  void flush(Node& n) {
    if (n.run.size() > 1 && n.run.size() <= kMaxGroup && !nests(n)) reorder(n);
    for (std::uint32_t i : n.run) link(n, i);
    n.run.clear();
  }

  static int& openCount(Node& n, std::int32_t ev) {
    for (auto& [code, k] : n.openCount)
      if (code == ev) return k;
    return n.openCount.emplace_back(ev, 0).second;
  }
  static int openCount(const Node& n, std::int32_t ev) {
    for (const auto& [code, k] : n.openCount)
      if (code == ev) return k;
    return 0;
  }

  // True when the run already nests in file order (the usual case: checked
  // without allocating): no entry of a code that is open, no exit of a code
  // that is not.
  bool nests(const Node& n) const {
    for (std::size_t k = 0; k < n.run.size(); ++k) {
      const Rec& r = recs_[n.run[k]];
      if (!isEntry(r) && !isExit(r)) continue;
      int open = openCount(n, r.evtype);
      for (std::size_t j = 0; j < k; ++j) {
        const Rec& q = recs_[n.run[j]];
        if (q.evtype == r.evtype) open += isEntry(q) ? 1 : isExit(q) ? -1 : 0;
      }
      if (isEntry(r) ? open > 0 : open <= 0) return false;
    }
    return true;
  }

  // An entry of a code that is open moves behind a later exit of that code
  // (the exit closes the open one); an exit of a code that is not open moves
  // behind a later entry of that code (its own).  Otherwise file order.  The
  // run's records are permuted among the run's own places in the file.
  void reorder(const Node& n) {
    std::vector<Rec> group;
    for (std::uint32_t i : n.run) group.push_back(recs_[i]);
    std::map<std::int32_t, int> opened;  // code -> entries - exits within the run so far
    auto isOpen = [&](std::int32_t ev) { return openCount(n, ev) + opened[ev] > 0; };
    std::vector<bool> used(group.size(), false);
    auto later = [&](std::size_t from, std::int32_t rectype, std::int32_t ev) {
      for (std::size_t k = from + 1; k < group.size(); ++k)
        if (!used[k] && group[k].rectype == rectype && group[k].evtype == ev) return k;
      return group.size();
    };
    std::size_t next = 0;
    for (std::uint32_t slot : n.run) {
      while (used[next]) ++next;
      const Rec& r = group[next];
      std::size_t pick = group.size();
      if (isEntry(r) && isOpen(r.evtype)) pick = later(next, picl::kExit, r.evtype);
      else if (isExit(r) && !isOpen(r.evtype)) pick = later(next, picl::kEntry, r.evtype);
      if (pick == group.size()) pick = next;
      used[pick] = true;
      const Rec& p = group[pick];
      if (isEntry(p)) ++opened[p.evtype];
      if (isExit(p) && isOpen(p.evtype)) --opened[p.evtype];
      recs_[slot] = p;
    }
  }

  void link(Node& n, std::uint32_t i) {
    Rec& r = recs_[i];
    if (isEntry(r)) {
      // A send inside a -785 on its node: the -785 is a multicast written
      // as sends (ab2picl's bracket), not MPICL's MPI_Bcast.
      if (roleOf(r.evtype) == Role::Send)
        for (auto it = n.open.rbegin(); it != n.open.rend(); ++it)
          if (recs_[*it].evtype == picl::kBcast) {
            recs_[*it].bcast = Rec::Bcast::Sends;
            break;
          }
      n.open.push_back(i);
      ++openCount(n, r.evtype);
    } else if (isExit(r)) {
      int& count = openCount(n, r.evtype);
      if (count == 0) return;  // nothing to close: no search
      --count;
      auto it = std::find_if(n.open.rbegin(), n.open.rend(), [&](std::uint32_t j) { return recs_[j].evtype == r.evtype; });
      r.mate = *it;
      recs_[*it].mate = i;
      // MPICL's MPI_Bcast exit carries the bytes; ab2picl's bracket exit
      // carries nothing (a multicast nobody received has no sends inside).
      Rec& e = recs_[*it];
      if (r.evtype == picl::kBcast && r.nd == 0 && e.bcast == Rec::Bcast::Mpi) e.bcast = Rec::Bcast::Empty;
      n.open.erase(std::next(it).base());
    }
  }

  std::vector<Rec>& recs_;
  std::vector<Node> nodes_;
};

}  // namespace

void nestSameTime(std::vector<Rec>& recs, const Nodes& nodes) {
  Nester nester(recs, nodes.ids.size());
  for (std::size_t i = 0; i < recs.size(); ++i) nester.add(static_cast<std::uint32_t>(i), nodes.index(recs[i].node));
  nester.finish();
}

// Serials per sender in send order; receives take them per (src, dst, tag)
// in order, whichever of the two comes first in the file.  MPICL's
// MPI_Bcast: the root's k-th is a message that every other node's k-th
// MPI_Bcast with that root receives.
std::uint64_t matchMessages(std::vector<Rec>& recs, const Nodes& nodes) {
  using Key = std::tuple<std::int32_t, std::int32_t, std::int32_t>;
  std::vector<std::int32_t> serials(nodes.ids.size(), 0);
  std::map<Key, std::deque<std::int32_t>> sends;    // serials not yet received
  std::map<Key, std::deque<std::size_t>> waiting;   // receives not yet matched
  std::map<std::int32_t, std::vector<std::int32_t>> bcasts;  // root -> serials of its MPI_Bcasts
  std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> bcastsGot;  // (root, node) -> count
  std::vector<std::pair<std::size_t, std::size_t>> leaves;  // (entry, k): the root's k-th MPI_Bcast
  for (std::size_t i = 0; i < recs.size(); ++i) {
    Rec& r = recs[i];
    const Role role = roleOf(r.evtype);
    if (isEntry(r) && role == Role::Send && r.nd >= 3) {
      r.serial = ++serials[nodes.index(r.node)];
      Key k{r.node, r.d[2], r.d[1]};
      auto w = waiting.find(k);
      if (w != waiting.end() && !w->second.empty()) {
        recs[w->second.front()].serial = r.serial;
        w->second.pop_front();
      } else {
        sends[k].push_back(r.serial);
      }
    } else if (isEntry(r) && role == Role::Bcast && r.bcast == Rec::Bcast::Mpi && isBcastRoot(r)) {
      r.serial = ++serials[nodes.index(r.node)];
      bcasts[r.node].push_back(r.serial);
    } else if (isEntry(r) && role == Role::Bcast && r.bcast == Rec::Bcast::Mpi && isBcastLeaf(r)) {
      leaves.emplace_back(i, bcastsGot[{r.d[1], r.node}]++);
    } else if (isExit(r) && (role == Role::Recv || role == Role::RecvLate) && carriesMessage(r)) {
      Key k{r.d[2], r.node, r.d[1]};
      auto s = sends.find(k);
      if (s != sends.end() && !s->second.empty()) {
        r.serial = s->second.front();
        s->second.pop_front();
      } else {
        waiting[k].push_back(i);
      }
    }
  }
  std::uint64_t unmatched = 0;
  for (auto& [k, q] : waiting) unmatched += q.size();
  for (auto [i, k] : leaves) {
    auto b = bcasts.find(recs[i].d[1]);
    if (b == bcasts.end() || k >= b->second.size()) {
      ++unmatched;
      continue;
    }
    recs[i].serial = b->second[k];
    if (recs[i].mate != kNoMate) recs[recs[i].mate].serial = b->second[k];
  }
  return unmatched;
}

}  // namespace xab::tr::piclrec
