print("sensorbridge-bench")
