#include "output/fst_writer.h"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "output/vcd.h"

#ifdef NETASIC_HAVE_FST
#include "fstapi.h"
#endif

namespace netasic {

#ifdef NETASIC_HAVE_FST

bool fst_available() { return true; }

void write_fst(const std::string& path, const wave_dump& d) {
  void* ctx = fstWriterCreate(path.c_str(), 1);
  if (!ctx) throw std::runtime_error(fmt::format("{}: cannot create the FST file", path));
  fstWriterSetVersion(ctx, "netasic");
  // The header's date is the wall clock by default: a fixed one keeps the same run's file the
  // same, bit for bit (the VCD writes no $date either).
  fstWriterSetDate(ctx, "simulated time");
  fstWriterSetTimescale(ctx, -12);   // 1 ps
  fstWriterSetPackType(ctx, FST_WR_PT_LZ4);
  std::vector<fstHandle> handle(d.vars.size());
  wave_scope_visitor v;
  v.enter = [&](const std::string& s) { fstWriterSetScope(ctx, FST_ST_VCD_MODULE, s.c_str(), nullptr); };
  v.var = [&](size_t i, const std::string& name) {
    handle[i] = fstWriterCreateVar(ctx, FST_VT_VCD_WIRE, FST_VD_IMPLICIT, d.vars[i].width, name.c_str(), 0);
  };
  v.leave = [&] { fstWriterSetUpscope(ctx); };
  visit_wave_scopes(d, v);
  fstWriterEmitTimeChange(ctx, 0);
  for (size_t i = 0; i < d.vars.size(); ++i) fstWriterEmitValueChange(ctx, handle[i], wave_bits(0, d.vars[i].width).c_str());
  uint64_t stamp = 0;
  for (const wave_change& c : d.changes) {
    if (c.t_ps != stamp) fstWriterEmitTimeChange(ctx, stamp = c.t_ps);
    fstWriterEmitValueChange(ctx, handle[c.id], wave_bits(c.value, d.vars[c.id].width).c_str());
  }
  if (d.end_ps > stamp) fstWriterEmitTimeChange(ctx, d.end_ps);
  const bool failed = fstWriterGetFseekFailed(ctx) != 0;
  fstWriterClose(ctx);
  if (failed) throw std::runtime_error(fmt::format("{}: writing the FST file failed", path));
}

#else

bool fst_available() { return false; }

void write_fst(const std::string& path, const wave_dump&) {
  throw std::runtime_error(fmt::format("{}: this netasic was built without an FST writer (GTKWave's fstapi, which "
                                       "Verilator installs); use --vcd", path));
}

#endif

}  // namespace netasic
