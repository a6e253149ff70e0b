// Package kernel holds the running kernel up as the oracle for contend's
// models.
package kernel
