/**
 * The claim-time contract between the agent and a device family: the neutral {@link io.nodeatlas.discovery.share.Share},
 * the family's opaque {@link io.nodeatlas.discovery.share.Placement}, and the family's
 * {@link io.nodeatlas.discovery.share.SharePlacer} (KEP-5075 consumable capacity, KEP-4381 Prepare).
 */
package io.nodeatlas.discovery.share;
