/**
 * Device health: what a discovery source watches after publishing ({@link io.nodeatlas.discovery.health.HealthCheck})
 * and what it reports ({@link io.nodeatlas.discovery.health.DeviceProblem}); the agent turns problems
 * into ResourceSlice device taints (KEP-5055) and the kubelet's health stream (KEP-4680).
 */
package io.nodeatlas.discovery.health;
