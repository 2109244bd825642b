// litert-memory: runs LiteRT's own GPU memory manager
// (tflite/delegates/gpu/common/memory_management.cc, built unmodified by
// build.sh) on a membench TFLite records CSV and prints what each
// MemoryStrategy gives, for membench's differential test
// (strategies/sizetypes_litert_test.go).
//
//   litert-memory [--skip STRATEGY]... FILE.csv
//
// --skip leaves a strategy out (LiteRT's MINCOSTFLOW runs for minutes on
// byte sizes near 2^40).
//
// Input: membench's TFLite records CSV (README "TFLite records"): '#'
// comments, a header naming the size type (size | x,y | x,y,z | b,h,w,c,
// then first_task,last_task), an optional element_size column (ignored:
// LiteRT plans extents) or, for byte sizes, a reuse or deps column (record
// indices separated by spaces). deps is turned into the reallocation graph
// by LiteRT's own ReallocationGraph.
//
// The strategies that walk the records in order and take that order to be
// by first_task (EQUALITY, GREEDY_IN_ORDER, MINCOSTFLOW: given records out
// of that order they can share an object between overlapping tensors) are
// handed them sorted stably by first_task, the order the delegate builds
// them in (gl/runtime.cc adds a program's records as it visits the
// programs) and the order membench plans them in, with the reallocation
// graph renumbered to match; the others (NAIVE, GREEDY_BY_BREADTH,
// GREEDY_BY_SIZE, GREEDY_BEST and AssignOffsetsToTensors' GREEDY_BY_SIZE)
// get them in file order. Ids and offsets are printed in file order.
//
// Output, one item per line:
//   size_type bytes|2d|3d|bhwc
//   edges I J...              (deps only: ReallocationGraph's list J... of
//                             record I, one line per record, file numbering)
//   strategy NAME             (membench's name of the MemoryStrategy)
//   object_ids I...           (per record, file order)
//   object_sizes S...         (bytes, or extents joined by 'x')
//   offsets O... / total_size N   (offset-greedy-by-size)
//   error TEXT                (the absl::Status message of a refusal)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "tflite/delegates/gpu/common/memory_management.h"
#include "tflite/delegates/gpu/common/memory_management/types.h"
#include "tflite/delegates/gpu/common/shape.h"
#include "tflite/delegates/gpu/common/types.h"

namespace gpu = tflite::gpu;

namespace {

struct Row {
  std::vector<uint64_t> ext;  // extents (one for bytes)
  size_t first, last;
  std::vector<size_t> list;  // reuse or deps
};

[[noreturn]] void Fail(const std::string& file, int line,
                       const std::string& what) {
  std::cerr << file << ":" << line << ": " << what << "\n";
  std::exit(2);
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

uint64_t Num(const std::string& file, int line, const std::string& s) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    Fail(file, line, "not a number: '" + s + "'");
  return std::stoull(s);
}

const struct {
  gpu::MemoryStrategy s;
  const char* name;
  bool sorted;  // handed the records sorted by first_task
} kStrategies[] = {
    {gpu::MemoryStrategy::NAIVE, "naive", false},
    {gpu::MemoryStrategy::EQUALITY, "equality", true},
    {gpu::MemoryStrategy::GREEDY_IN_ORDER, "greedy-in-order", true},
    {gpu::MemoryStrategy::GREEDY_BY_BREADTH, "greedy-by-breadth", false},
    {gpu::MemoryStrategy::GREEDY_BY_SIZE, "greedy-by-size", false},
    {gpu::MemoryStrategy::GREEDY_BEST, "greedy-best", false},
    {gpu::MemoryStrategy::MINCOSTFLOW, "min-cost-flow", true},
};

std::string Str(size_t v) { return std::to_string(v); }
std::string Str(const gpu::uint2& v) {
  return std::to_string(v.x) + "x" + std::to_string(v.y);
}
std::string Str(const gpu::uint3& v) {
  return std::to_string(v.x) + "x" + std::to_string(v.y) + "x" +
         std::to_string(v.z);
}
std::string Str(const gpu::BHWC& v) {
  return std::to_string(v.b) + "x" + std::to_string(v.h) + "x" +
         std::to_string(v.w) + "x" + std::to_string(v.c);
}

size_t MakeSize(const Row& r, size_t*) { return r.ext[0]; }
gpu::uint2 MakeSize(const Row& r, gpu::uint2*) {
  return gpu::uint2(r.ext[0], r.ext[1]);
}
gpu::uint3 MakeSize(const Row& r, gpu::uint3*) {
  return gpu::uint3(r.ext[0], r.ext[1], r.ext[2]);
}
gpu::BHWC MakeSize(const Row& r, gpu::BHWC*) {
  return gpu::BHWC(r.ext[0], r.ext[1], r.ext[2], r.ext[3]);
}

std::vector<std::string> skipped;

bool Skipped(const char* name) {
  return std::find(skipped.begin(), skipped.end(), name) != skipped.end();
}

// Run prints each strategy's assignment. sorted[k] is the file index of the
// k-th record in first_task order, sortedGraph the reallocation graph in
// that numbering and graph in the file's (both null without one).
template <typename T>
void Run(const std::vector<Row>& rows, const std::vector<size_t>& sorted,
         const gpu::UsageGraph* sortedGraph, const gpu::UsageGraph* graph) {
  std::vector<size_t> file(rows.size());
  std::iota(file.begin(), file.end(), 0);
  auto records = [&](const std::vector<size_t>& order) {
    std::vector<gpu::TensorUsageRecord<T>> recs;
    for (size_t i : order) {
      const Row& r = rows[i];
      recs.emplace_back(MakeSize(r, static_cast<T*>(nullptr)), r.first,
                        r.last);
    }
    return recs;
  };
  const auto bySorted = records(sorted), byFile = records(file);
  for (const auto& st : kStrategies) {
    if (Skipped(st.name)) continue;
    std::cout << "strategy " << st.name << std::endl;
    const std::vector<size_t>& order = st.sorted ? sorted : file;
    gpu::ObjectsAssignment<T> a;
    absl::Status status = gpu::AssignObjectsToTensors(
        st.sorted ? bySorted : byFile, st.s, &a,
        st.sorted ? sortedGraph : graph);
    if (!status.ok()) {
      std::cout << "error " << status.message() << "\n";
      continue;
    }
    std::vector<size_t> ids(rows.size());
    for (size_t k = 0; k < order.size(); ++k) ids[order[k]] = a.object_ids[k];
    std::cout << "object_ids";
    for (size_t id : ids) std::cout << " " << id;
    std::cout << "\nobject_sizes";
    for (const T& s : a.object_sizes) std::cout << " " << Str(s);
    std::cout << "\n";
  }
}

void RunOffsets(const std::vector<gpu::TensorUsageRecord<size_t>>& recs,
                const gpu::UsageGraph* graph) {
  if (Skipped("offset-greedy-by-size")) return;
  std::cout << "strategy offset-greedy-by-size\n";
  gpu::OffsetsAssignment a;
  absl::Status status = gpu::AssignOffsetsToTensors(
      recs, gpu::MemoryStrategy::GREEDY_BY_SIZE, &a, 1, graph);
  if (!status.ok()) {
    std::cout << "error " << status.message() << "\n";
    return;
  }
  std::cout << "offsets";
  for (size_t o : a.offsets) std::cout << " " << o;
  std::cout << "\ntotal_size " << a.total_size << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  int a = 1;
  for (; a + 1 < argc && std::string(argv[a]) == "--skip"; a += 2)
    skipped.push_back(argv[a + 1]);
  if (a + 1 != argc) {
    std::cerr << "usage: litert-memory [--skip STRATEGY]... FILE.csv\n";
    return 2;
  }
  const std::string file = argv[a];
  std::ifstream in(file);
  if (!in) Fail(file, 0, "cannot open");
  std::string line, type, listKind;
  size_t dims = 0, cols = 0;
  bool elem = false;
  std::vector<Row> rows;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = Split(line, ',');
    if (type.empty()) {
      std::string h = line;
      auto strip = [&](const std::string& tail) {
        if (h.size() >= tail.size() &&
            h.compare(h.size() - tail.size(), tail.size(), tail) == 0) {
          h.resize(h.size() - tail.size());
          return true;
        }
        return false;
      };
      if (strip(",reuse")) listKind = "reuse";
      else if (strip(",deps")) listKind = "deps";
      else if (strip(",element_size")) elem = true;
      if (h == "size,first_task,last_task") type = "bytes", dims = 1;
      else if (h == "x,y,first_task,last_task") type = "2d", dims = 2;
      else if (h == "x,y,z,first_task,last_task") type = "3d", dims = 3;
      else if (h == "b,h,w,c,first_task,last_task") type = "bhwc", dims = 4;
      else Fail(file, lineno, "unknown header: " + line);
      if (!listKind.empty() && type != "bytes")
        Fail(file, lineno, "reuse and deps are for byte sizes");
      cols = dims + 2 + (listKind.empty() ? 0 : 1) + (elem ? 1 : 0);
      continue;
    }
    if (f.size() != cols)
      Fail(file, lineno, "want " + std::to_string(cols) + " columns");
    Row r;
    for (size_t d = 0; d < dims; ++d) r.ext.push_back(Num(file, lineno, f[d]));
    r.first = Num(file, lineno, f[dims]);
    r.last = Num(file, lineno, f[dims + 1]);
    if (!listKind.empty()) {
      std::istringstream l(f[dims + 2]);
      std::string tok;
      while (l >> tok) r.list.push_back(Num(file, lineno, tok));
    }
    rows.push_back(r);
  }
  if (type.empty()) Fail(file, lineno, "no header");
  for (const Row& r : rows)
    for (size_t j : r.list)
      if (j >= rows.size()) Fail(file, 0, "list names record " + Str(j));

  std::vector<size_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return rows[a].first < rows[b].first;
  });
  std::vector<size_t> pos(rows.size());
  for (size_t k = 0; k < order.size(); ++k) pos[order[k]] = k;

  std::cout << "# litert-memory: LiteRT " << LITERT_REVISION
            << " memory_management.cc on " << file << "\n";
  std::cout << "size_type " << type << "\n";
  if (type == "bytes") {
    gpu::UsageGraph graph, sorted;
    const gpu::UsageGraph* g = nullptr;
    if (!listKind.empty()) {
      gpu::UsageGraph lists(rows.size());
      for (size_t i = 0; i < rows.size(); ++i) lists[i] = rows[i].list;
      graph = listKind == "deps" ? gpu::ReallocationGraph(lists) : lists;
      for (size_t i = 0; listKind == "deps" && i < rows.size(); ++i) {
        std::cout << "edges " << i;
        for (size_t j : graph[i]) std::cout << " " << j;
        std::cout << "\n";
      }
      sorted.resize(rows.size());
      for (size_t i = 0; i < rows.size(); ++i) {
        for (size_t j : graph[i]) sorted[pos[i]].push_back(pos[j]);
        std::sort(sorted[pos[i]].begin(), sorted[pos[i]].end());
      }
      g = &sorted;
    }
    Run<size_t>(rows, order, g, g ? &graph : nullptr);
    std::vector<gpu::TensorUsageRecord<size_t>> recs;
    for (const Row& r : rows) recs.emplace_back(r.ext[0], r.first, r.last);
    RunOffsets(recs, g ? &graph : nullptr);
  } else if (type == "2d") {
    Run<gpu::uint2>(rows, order, nullptr, nullptr);
  } else if (type == "3d") {
    Run<gpu::uint3>(rows, order, nullptr, nullptr);
  } else {
    Run<gpu::BHWC>(rows, order, nullptr, nullptr);
  }
  return 0;
}
