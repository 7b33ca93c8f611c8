"""safeplan_ros: an ament_python package; `colcon build` or `pip install .` installs it."""

from setuptools import setup

package_name = "safeplan_ros"

setup(
    name=package_name,
    version="0.1.0",
    packages=[package_name],
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="safeplan",
    maintainer_email="safeplan@example.org",
    description="safeplan in ROS 2: a plan-assessing, step-shielding lifecycle node.",
    license="MIT OR Apache-2.0",
    entry_points={
        "console_scripts": [
            "shield = safeplan_ros.shield_node:main",
            "sim_robot = safeplan_ros.robot:robot_main",
            "executive = safeplan_ros.robot:executive_main",
        ],
    },
)
