#include "topology/mcf_throughput.h"

#include <chrono>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <glpk.h>

#include "topology/cbd_check.h"

namespace netasic {

double link_capacity(const topology& t, unsigned link) {
  if (t.hosts.empty()) throw std::invalid_argument("throughput: the topology has no host, so no host line rate");
  const double unit = double(t.links[t.nodes[t.hosts[0]].port_link[0]].rate_bps);
  return double(t.links[link].rate_bps) / unit;
}

namespace {

// The LP in GLPK's triplet form: column 1 is t, then one column per (demand, path).
struct lp_build {
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0};
  void put(int row, int col, double v) { ia.push_back(row), ja.push_back(col), ar.push_back(v); }
};

}  // namespace

mcf_result max_concurrent_flow(const topology& t, const std::vector<pair_paths>& paths, const traffic_matrix& tm) {
  std::map<std::pair<unsigned, unsigned>, const pair_paths*> by_pair;
  for (const pair_paths& pp : paths) by_pair[{pp.src, pp.dst}] = &pp;
  std::vector<const pair_paths*> of_demand;
  for (const demand& d : tm.demands) {
    const auto it = by_pair.find({d.src, d.dst});
    if (it == by_pair.end() || it->second->paths.empty())
      throw std::invalid_argument(fmt::format("throughput: {} -> {} has demand but no path", t.nodes[d.src].name, t.nodes[d.dst].name));
    of_demand.push_back(it->second);
  }
  glp_prob* lp = glp_create_prob();
  glp_set_obj_dir(lp, GLP_MAX);
  const int demands = int(tm.demands.size());
  // Rows 1..demands: sum_p x_cp - D_c t = 0. Then one row per directed link some path uses.
  if (demands > 0) glp_add_rows(lp, demands);
  for (int c = 1; c <= demands; ++c) glp_set_row_bnds(lp, c, GLP_FX, 0, 0);
  std::map<unsigned, int> link_row;   // directed link -> row
  lp_build m;
  int cols = 1;
  for (int c = 0; c < demands; ++c) cols += int(of_demand[size_t(c)]->paths.size());
  glp_add_cols(lp, cols);
  glp_set_col_bnds(lp, 1, GLP_LO, 0, 0);
  glp_set_obj_coef(lp, 1, 1);
  int col = 1;
  for (int c = 0; c < demands; ++c) {
    m.put(c + 1, 1, -tm.demands[size_t(c)].rate);
    for (const route_path& p : of_demand[size_t(c)]->paths) {
      glp_set_col_bnds(lp, ++col, GLP_LO, 0, 0);
      m.put(c + 1, col, 1);
      for (size_t i = 0; i < p.links.size(); ++i) {
        const unsigned dl = directed_link(t, p.links[i], p.nodes[i]);
        auto [it, fresh] = link_row.try_emplace(dl, 0);
        if (fresh) {
          it->second = glp_add_rows(lp, 1);
          glp_set_row_bnds(lp, it->second, GLP_UP, 0, link_capacity(t, p.links[i]));
        }
        m.put(it->second, col, 1);
      }
    }
  }
  glp_load_matrix(lp, int(m.ia.size()) - 1, m.ia.data(), m.ja.data(), m.ar.data());
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_ON;
  const auto start = std::chrono::steady_clock::now();
  const int rc = glp_simplex(lp, &parm);
  mcf_result r;
  r.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.rows = size_t(glp_get_num_rows(lp));
  r.columns = size_t(cols);
  if (rc != 0 || glp_get_status(lp) != GLP_OPT) {
    glp_delete_prob(lp);
    throw std::runtime_error(fmt::format("throughput: GLPK's simplex stopped without an optimum (code {})", rc));
  }
  r.throughput = glp_get_obj_val(lp);
  col = 1;
  for (int c = 0; c < demands; ++c) {
    r.split.emplace_back();
    for (size_t p = 0; p < of_demand[size_t(c)]->paths.size(); ++p) r.split.back().push_back(glp_get_col_prim(lp, ++col));
  }
  glp_delete_prob(lp);
  return r;
}

}  // namespace netasic
