"""safeplan in ROS 2: the shield node (:mod:`safeplan_ros.shield_node`), the conversions
between safeplan's answers and the messages (:mod:`safeplan_ros.convert`), and an example
robot with its executive (:mod:`safeplan_ros.robot`). docs/ROS.md has the guide."""
