#include "blocks/flowradar_decode.h"

#include <chrono>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include <Eigen/IterativeLinearSolvers>
#include <Eigen/Sparse>
#include <Eigen/SparseQR>

namespace netasic {
namespace {

uint32_t mask_of(unsigned bits) { return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1; }

bool is_zero(const flowradar_flow& f) {
  for (uint8_t b : f)
    if (b) return false;
  return true;
}

// The residual cells of one table while it is peeled.
struct peeler {
  const flowradar_table* t;
  std::vector<flowradar_cell> cells;
  uint32_t fmask, pmask;
  std::vector<uint32_t> todo;   // cells to look at

  explicit peeler(const flowradar_table& table)
      : t(&table), cells(table.cells), fmask(mask_of(table.params.flow_count_bits)),
        pmask(mask_of(table.params.packet_count_bits)) {
    for (uint32_t c = 0; c < cells.size(); ++c) todo.push_back(c);
  }

  unsigned slice_of(uint32_t c) const {
    const flowradar_params& p = t->params;
    for (unsigned i = 0; i + 1 < p.cell_hashes; ++i)
      if (c < flowradar_slice_offset(p.cells, p.cell_hashes, i + 1)) return i;
    return p.cell_hashes - 1;
  }
  // FlowCount 1 alone could be a wrapped count or a corrupted cell: the flow must also hash to
  // this very cell and pass the filter, or it is not taken.
  bool pure(uint32_t c) const {
    const flowradar_cell& x = cells[c];
    return x.flow_count == 1 && flowradar_cell_index(t->params, x.flow_xor, slice_of(c)) == c && t->filter_has(x.flow_xor);
  }
  void remove(const flowradar_flow& f, uint32_t packets) {
    for (unsigned i = 0; i < t->params.cell_hashes; ++i) {
      const uint32_t c = flowradar_cell_index(t->params, f, i);
      flowradar_cell& x = cells[c];
      for (unsigned k = 0; k < flowradar_flow_bytes; ++k) x.flow_xor[k] ^= f[k];
      x.flow_count = (x.flow_count - 1) & fmask;
      x.packet_count = (x.packet_count - packets) & pmask;
      todo.push_back(c);
    }
  }
  // Peels until no cell is pure; calls got(flow, packets) for each flow found.
  template <class F>
  void run(F&& got) {
    while (!todo.empty()) {
      const uint32_t c = todo.back();
      todo.pop_back();
      if (!pure(c)) continue;
      const flowradar_flow f = cells[c].flow_xor;
      const uint32_t pk = cells[c].packet_count;
      remove(f, pk);
      got(f, pk);
    }
  }
  bool flows_empty() const {
    for (const auto& x : cells)
      if (x.flow_count || !is_zero(x.flow_xor)) return false;
    return true;
  }
  bool packets_empty() const {
    for (const auto& x : cells)
      if (x.packet_count) return false;
    return true;
  }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

flowradar_single_result flowradar_single_decode(const flowradar_table& t) {
  flowradar_single_result r;
  peeler p(t);
  p.run([&](const flowradar_flow& f, uint32_t pk) {
    r.flows.push_back(f);
    r.packets.push_back(pk);
  });
  r.complete = p.flows_empty();
  r.counters_consistent = r.complete && p.packets_empty();
  return r;
}

flowradar_counter_result flowradar_counter_decode(const flowradar_table& t, const std::vector<flowradar_flow>& flows,
                                                  const std::vector<double>& guess, const flowradar_counter_options& o) {
  using sparse = Eigen::SparseMatrix<double>;
  const flowradar_params& p = t.params;
  const Eigen::Index m = Eigen::Index(p.cells), n = Eigen::Index(flows.size());
  flowradar_counter_result r;
  r.packets.assign(flows.size(), 0);
  std::vector<Eigen::Triplet<double>> ones;
  std::vector<std::vector<uint32_t>> cells_of(flows.size());
  for (size_t f = 0; f < flows.size(); ++f)
    for (unsigned i = 0; i < p.cell_hashes; ++i) {
      cells_of[f].push_back(flowradar_cell_index(p, flows[f], i));
      ones.emplace_back(Eigen::Index(cells_of[f].back()), Eigen::Index(f), 1.0);
    }
  sparse M(m, n);
  M.setFromTriplets(ones.begin(), ones.end());
  Eigen::VectorXd b(m), x = Eigen::VectorXd::Zero(n);
  for (Eigen::Index l = 0; l < m; ++l) b[l] = double(t.cells[size_t(l)].packet_count);
  if (o.use_guess && guess.size() == flows.size())
    for (Eigen::Index f = 0; f < n; ++f) x[f] = guess[size_t(f)];

  // Exact check in integers: round(x) >= 0 and M round(x) = b in every cell.
  auto solves = [&]() {
    std::vector<uint64_t> sum(p.cells, 0);
    for (Eigen::Index f = 0; f < n; ++f) {
      const double v = std::round(x[f]);
      if (v < 0) return false;
      r.packets[size_t(f)] = uint64_t(v);
      for (uint32_t c : cells_of[size_t(f)]) sum[c] += uint64_t(v);
    }
    for (uint32_t c = 0; c < p.cells; ++c)
      if (sum[c] != t.cells[c].packet_count) return false;
    return true;
  };
  const unsigned cap = o.max_iterations ? o.max_iterations : unsigned(4 * flows.size() + 100);
  if (n == 0) {
    r.solved = solves();
    return r;
  }
  if (n > m) return r;   // fewer equations than unknowns: many solutions, none to trust (§4.4.2: m_c >= n)
  Eigen::LeastSquaresConjugateGradient<sparse> solver;
  solver.compute(M);
  if (o.integer_stop) {
    // Runs from the last iterate, checking the rounding after each. Each run restarts CGLS's
    // search direction, so the runs grow (8, 16, 32, ... iterations) to keep the restarts few on
    // ill-conditioned systems (m_c close to n).
    unsigned step = 8;
    solver.setTolerance(1e-14);
    while (!(r.solved = solves()) && r.iterations < cap) {
      solver.setMaxIterations(step);
      step *= 2;
      x = solver.solveWithGuess(b, x);
      r.iterations += unsigned(solver.iterations());
      if (solver.iterations() == 0) break;   // converged: rounding will not change any more
    }
  } else {
    solver.setTolerance(1e-12);
    solver.setMaxIterations(cap);
    x = solver.solveWithGuess(b, x);
    r.iterations = unsigned(solver.iterations());
    r.solved = solves();
  }
  // A solution is the counters only if it is the only one: M must have full column rank (two
  // flows in the same cells, or any cycle of them, leave many integer solutions).
  if (r.solved) {
    M.makeCompressed();
    Eigen::SparseQR<sparse, Eigen::COLAMDOrdering<int>> qr(M);
    if (qr.info() != Eigen::Success || qr.rank() < n) r.solved = false;
  }
  return r;
}

namespace {

// One switch during NetDecode.
struct net_state {
  std::unique_ptr<peeler> peel;
  std::map<flowradar_flow, double> known;   // decoded flows and their counter guess
  std::set<flowradar_flow> exact;           // ... of them, peeled while the PacketCounts held
  std::vector<flowradar_flow> order;        // in decoding order
  bool tainted = false;                     // a neighbour's flow was removed: PacketCounts need solving
};

std::vector<unsigned> candidates(const flowradar_net_input& in, unsigned i, const flowradar_flow& f) {
  if (in.routes) {
    auto it = in.routes->find(f);
    if (it != in.routes->end()) {   // routing information: the previous and next hop only
      std::vector<unsigned> c;
      const auto& path = it->second;
      for (size_t k = 0; k < path.size(); ++k)
        if (path[k] == i) {
          if (k > 0) c.push_back(path[k - 1]);
          if (k + 1 < path.size()) c.push_back(path[k + 1]);
        }
      return c;
    }
  }
  return in.neighbours[i];
}

}  // namespace

flowradar_net_result flowradar_net_decode(const flowradar_net_input& in, const flowradar_counter_options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const size_t N = in.tables.size();
  flowradar_net_result r;
  r.sw.resize(N);
  std::vector<net_state> st(N);
  std::deque<std::pair<unsigned, flowradar_flow>> work;
  for (unsigned i = 0; i < N; ++i) {   // SingleDecode at every switch
    if (!in.tables[i]) continue;
    st[i].peel = std::make_unique<peeler>(*in.tables[i]);
    st[i].peel->run([&](const flowradar_flow& f, uint32_t pk) {
      st[i].known[f] = pk;
      st[i].exact.insert(f);
      st[i].order.push_back(f);
      work.emplace_back(i, f);
    });
    r.sw[i].single_complete = st[i].peel->flows_empty();
  }
  while (!work.empty()) {   // FlowDecode (Alg. 8)
    const auto [i, f] = work.front();
    work.pop_front();
    const double guess = st[i].known[f];
    for (unsigned j : candidates(in, i, f)) {
      if (j >= N || !in.tables[j] || st[j].known.count(f) || !in.tables[j]->filter_has(f)) continue;
      net_state& s = st[j];
      s.tainted = true;
      s.peel->remove(f, 0);
      s.known[f] = guess;
      s.order.push_back(f);
      work.emplace_back(j, f);
      s.peel->run([&](const flowradar_flow& g, uint32_t pk) {
        s.known[g] = pk;   // mixed with removed flows' packets: only a first guess
        s.order.push_back(g);
        work.emplace_back(j, g);
      });
    }
  }
  r.flow_decode_s = seconds_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  for (unsigned i = 0; i < N; ++i) {   // CounterDecode (Alg. 9) where SingleDecode's counters do not hold
    if (!in.tables[i]) continue;
    flowradar_net_switch& out = r.sw[i];
    net_state& s = st[i];
    out.flows = s.order;
    out.flows_complete = s.peel->flows_empty();
    // Without a solve, the flows peeled before any neighbour's flow was removed keep their
    // pure-cell counts; the others have none.
    for (const auto& f : s.order) {
      out.packets.push_back(s.exact.count(f) ? uint64_t(s.known[f]) : 0);
      out.counted.push_back(s.exact.count(f) ? 1 : 0);
    }
    if (!out.flows_complete) continue;
    if (!s.tainted && s.peel->packets_empty()) {
      out.counters_ok = true;
      continue;
    }
    std::vector<double> guess;   // speed-up 1: an exact count of the flow here or next door
    for (const auto& f : s.order) {
      double g = s.exact.count(f) ? s.known[f] : 0;
      if (!s.exact.count(f))
        for (unsigned j : candidates(in, i, f))
          if (j < N && st[j].exact.count(f)) {
            g = st[j].known[f];
            break;
          }
      guess.push_back(g);
    }
    flowradar_counter_result c = flowradar_counter_decode(*in.tables[i], s.order, guess, o);
    out.solver_iterations = c.iterations;
    if (!c.solved) continue;
    out.packets = std::move(c.packets);
    out.counted.assign(out.flows.size(), 1);
    out.counters_ok = true;
  }
  r.counter_decode_s = seconds_since(t1);
  return r;
}

}  // namespace netasic
