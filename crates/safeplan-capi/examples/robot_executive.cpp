// robot_executive.cpp: a C++ robot executive guarded by safeplan's timed monitor, as a
// PlanSys2-style executor would use it (docs/C.md, "PlanSys2").
//
//   c++ -std=c++17 robot_executive.cpp $(pkg-config --cflags --libs safeplan) -o robot_executive
//   ./robot_executive DOMAIN PROBLEM PLAN
//
// It loads a timestamped plan (`0.000: (action args) [duration]`, as PlanSys2 and POPF write
// them), turns it into start and end events in time order, and asks the monitor before each
// one. It dispatches what is allowed and stops before the first event the monitor refuses,
// printing why. Exit 0 when the whole plan ran, 1 when it stopped, 2 on an error.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "safeplan.hpp"

namespace {

struct Event {
  double time;
  int order;  // starts and ends at one time keep the plan's order
  bool start;
  std::string action;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `0.000: (pick-up tea kitchen) [2.000]` lines; `;` comments skipped.
std::vector<Event> schedule(const std::string& plan) {
  std::vector<Event> events;
  std::istringstream lines(plan);
  std::string line;
  int order = 0;
  while (std::getline(lines, line)) {
    auto colon = line.find(':'), open = line.find('('), close = line.find(')');
    auto lb = line.find('['), rb = line.find(']');
    if (line.empty() || line[0] == ';' || colon == std::string::npos ||
        open == std::string::npos || close == std::string::npos || lb == std::string::npos ||
        rb == std::string::npos) {
      continue;
    }
    double start = std::stod(line.substr(0, colon));
    double duration = std::stod(line.substr(lb + 1, rb - lb - 1));
    std::string action = line.substr(open, close - open + 1);
    events.push_back({start, order++, true, action});
    events.push_back({start + duration, order++, false, action});
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.time < b.time;
  });
  return events;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: " << argv[0] << " DOMAIN PROBLEM PLAN\n";
    return 2;
  }
  try {
    safeplan::Task task(slurp(argv[1]), slurp(argv[2]));
    safeplan::TimedMonitor monitor(task);
    for (const Event& e : schedule(slurp(argv[3]))) {
      safeplan::Verdict v = e.start ? monitor.start(e.action, e.time) : monitor.end(e.action, e.time);
      if (!v) {
        std::cout << "STOP at " << e.time << " before " << (e.start ? "starting " : "ending ")
                  << e.action << ": " << v.message() << "\n";
        return 1;
      }
      std::cout << e.time << "  " << (e.start ? "start " : "end   ") << e.action << "\n";
    }
    std::cout << "plan done\n";
    return 0;
  } catch (const safeplan::Error& e) {
    std::cerr << "error [" << e.code() << "]: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}
