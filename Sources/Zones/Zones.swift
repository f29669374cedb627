// Workout zones (issue 4).
