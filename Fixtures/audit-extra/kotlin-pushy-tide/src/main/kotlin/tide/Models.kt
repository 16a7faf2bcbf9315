package tide

import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable

@Serializable
data class LiveActivityAps( // #DECOY data class
    val event: String,
    val timestamp: Long,
    @SerialName("content-state") val contentState: Map<String, Double>,
)
