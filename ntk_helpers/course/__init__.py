"""Lesson and course support: data sets, plotting style, slider widgets, and the checks the exercises'
graded tests use (``ntk_helpers.course.grading``)."""
