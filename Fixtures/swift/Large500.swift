//
//  LiveActivityAttributes.swift
//  KoraWidgets
//
//  Shared between the app and the widget extension. Every type here is encoded by the server
//  (see server/Sources/Push/) and decoded on device by ActivityKit with a default JSONDecoder.
//  Keep the two sides in sync: a renamed key or a new non-optional property breaks pushes.
//

import ActivityKit
import Foundation

// MARK: - Shared helpers

/// A money amount in minor units (cents) with its ISO 4217 currency code.
public struct Money: Codable, Hashable, Sendable {
    public var minorUnits: Int64
    public var currency: String

    public init(minorUnits: Int64, currency: String) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// "12.50 EUR" — used by the compact leading view.
    public var formatted: String {
        let major = Double(minorUnits) / 100
        return String(format: "%.2f %@", major, currency)
    }

    public static let zero = Money(minorUnits: 0, currency: "EUR")
}

/// A point on the map, as the server sends it (degrees, WGS 84).
public struct GeoPoint: Codable, Hashable, Sendable {
    public var latitude: Double
    public var longitude: Double

    /// Rough distance in metres (equirectangular; good enough for "2 km away").
    public func distance(to other: GeoPoint) -> Double {
        let r = 6_371_000.0
        let x = (other.longitude - longitude) * .pi / 180 * cos((latitude + other.latitude) / 2 * .pi / 180)
        let y = (other.latitude - latitude) * .pi / 180
        return (x * x + y * y).squareRoot() * r
    }
}

public typealias Minutes = Int
public typealias Seconds = Double

/// How urgent an update is; drives the alert style on the Lock Screen.
public enum Urgency: Int, Codable, Hashable, Sendable, CaseIterable {
    case background = 0
    case normal
    case important = 10
    case critical

    var label: String {
        switch self {
        case .background: return "bg"
        case .normal: return "normal"
        case .important: return "important"
        case .critical: return "critical"
        }
    }
}

/* The brand palette is shared with the app.
   Colors are sent as names, not hex values, so that dark mode can pick its own variant.
   /* Nested: older servers sent "accentColor"; that key is gone. */ */
public enum BrandColor: String, Codable, Hashable, Sendable {
    case primary
    case secondary
    case accent = "accent_color"
    case warning
    case danger = "danger_red"
}

// MARK: - Food delivery

public struct FoodOrderAttributes: ActivityAttributes {
    public typealias ContentState = FoodOrderStatus

    public var orderID: String
    public var restaurantName: String
    public var restaurantLogo: URL?
    public var total: Money
    public var placedAt: Date
    public var items: [OrderItem]
    /// Never sent: computed on device.
    public var itemCount: Int { items.reduce(0) { $0 + $1.quantity } }
    /// Schema version of this struct; not decoded because it has an initial value.
    public let schemaVersion = 4

    public struct OrderItem: Codable, Hashable, Sendable {
        public var name: String
        public var quantity: Int
        public var note: String?

        enum CodingKeys: String, CodingKey {
            case name = "title"
            case quantity = "qty"
            case note
        }
    }

    enum CodingKeys: String, CodingKey {
        case orderID = "order_id"
        case restaurantName = "restaurant_name"
        case restaurantLogo = "restaurant_logo"
        case total
        case placedAt = "placed_at"
        case items
    }
}

public struct FoodOrderStatus: Codable, Hashable, Sendable {
    public enum Stage: String, Codable, Hashable, Sendable {
        case received
        case preparing
        case readyForPickup = "ready_for_pickup"
        case onTheWay = "on_the_way"
        case delivered
        case cancelled
    }

    public var stage: Stage
    public var etaMinutes: Minutes?
    public var courier: Courier?
    public var courierLocation: GeoPoint?
    public var urgency: Urgency = .normal
    public var message: String?
    public var updatedAt: Date

    /// Progress 0…1 for the progress bar.
    public var progress: Double {
        switch stage {
        case .received: return 0.1
        case .preparing: return 0.35
        case .readyForPickup: return 0.5
        case .onTheWay: return 0.8
        case .delivered, .cancelled: return 1
        }
    }

    public var isFinal: Bool { stage == .delivered || stage == .cancelled }

    enum CodingKeys: String, CodingKey {
        case stage
        case etaMinutes = "eta_minutes"
        case courier
        case courierLocation = "courier_location"
        case urgency
        case message
        case updatedAt = "updated_at"
    }
}

public struct Courier: Codable, Hashable, Sendable {
    public var firstName: String
    public var vehicle: Vehicle
    public var rating: Float?
    public var photo: URL?

    public enum Vehicle: String, Codable, Hashable, Sendable {
        case bike, scooter, car
        case onFoot = "on_foot"
    }
}

extension FoodOrderStatus {
    /// Placeholder used by previews and by the widget gallery.
    public static let preview = FoodOrderStatus(
        stage: .preparing, etaMinutes: 25, courier: nil, courierLocation: nil,
        urgency: .normal, message: "The kitchen is on it { yum }", updatedAt: Date(timeIntervalSinceReferenceDate: 0))

    /// A line such as "Arriving in 12 min" or "Delivered".
    public var headline: String {
        if let eta = etaMinutes, !isFinal {
            return "Arriving in \(eta) min"
        }
        return stage == .delivered ? "Delivered" : "Order \(stage.rawValue)"
    }
}

// MARK: - Ride hailing

public struct RideAttributes: ActivityAttributes, Identifiable {
    public struct ContentState: Codable, Hashable, Sendable {
        public var phase: RidePhase
        public var driver: Driver?
        public var pickupETA: Seconds?
        public var dropoffETA: Seconds?
        public var fare: Money?
        public var route: [GeoPoint]
        public var surge: Decimal?
        /// Shown in the expanded region; server truncates to 60 characters.
        public var banner: String? {
            didSet { banner = banner.map { String($0.prefix(60)) } }
        }

        #if DEBUG
        public var debugTrace: [String: String]?
        #endif
    }

    public var id: UUID
    public var pickup: Place
    public var dropoff: Place
    public var product: Product
    public var requestedAt: Date

    public struct Place: Codable, Hashable, Sendable {
        public var name: String
        public var point: GeoPoint
        public var address: String?
    }

    public enum Product: String, Codable, Hashable, Sendable {
        case standard, comfort, xl, green
    }
}

public enum RidePhase: Codable, Hashable, Sendable {
    case searching
    case driverAssigned(eta: Seconds)
    case arriving(Seconds, distanceMeters: Int)
    case onTrip
    case completed(fare: Money)
    case cancelled(reason: String?)
}

public struct Driver: Codable, Hashable, Sendable {
    public var name: String
    public var carModel: String
    public var plate: String
    public var rating: Double
    public var avatar: URL?
    public var languages: Set<String>
}

extension RideAttributes {
    public var title: String { "\(pickup.name) → \(dropoff.name)" }

    public static func sample() -> RideAttributes {
        RideAttributes(
            id: UUID(),
            pickup: Place(name: "Home", point: GeoPoint(latitude: 52.52, longitude: 13.40), address: nil),
            dropoff: Place(name: "Office", point: GeoPoint(latitude: 52.50, longitude: 13.37), address: "Potsdamer Platz 1"),
            product: .comfort,
            requestedAt: Date())
    }
}

extension RideAttributes.ContentState {
    public var etaText: String {
        guard let eta = pickupETA else { return "—" }
        let minutes = Int((eta / 60).rounded(.up))
        return minutes <= 1 ? "Now" : "\(minutes) min"
    }
}

// MARK: - Sports

public struct MatchAttributes: ActivityAttributes {
    public struct ContentState: Codable, Hashable, Sendable {
        public var homeScore: Int
        public var awayScore: Int
        public var clock: MatchClock
        public var lastEvent: MatchEvent?
        public var possession: Side?
        public var stats: [String: Double]
        public var events: [MatchEvent]

        public var scoreLine: String { "\(homeScore) – \(awayScore)" }
    }

    public var competition: String
    public var home: Team
    public var away: Team
    public var kickoff: Date
    public var venue: String?
    public var broadcast: [URL]

    public struct Team: Codable, Hashable, Sendable {
        public var name: String
        public var shortName: String
        public var color: BrandColor
        public var crest: URL?
    }
}

public enum Side: String, Codable, Hashable, Sendable {
    case home, away
}

public struct MatchClock: Codable, Hashable, Sendable {
    public var period: Period
    public var minute: UInt8
    public var addedTime: UInt8?
    public var running: Bool

    public enum Period: Int, Codable, Hashable, Sendable {
        case notStarted = -1
        case firstHalf = 1
        case halfTime
        case secondHalf
        case extraTime
        case penalties
        case finished = 99
    }
}

public struct MatchEvent: Codable, Hashable, Sendable, Identifiable {
    public var id: UUID
    public var minute: Int
    public var kind: Kind
    public var side: Side
    public var player: String?

    public enum Kind: String, Codable, Hashable, Sendable {
        case goal
        case ownGoal = "own_goal"
        case penaltyGoal = "penalty_goal"
        case yellowCard = "yellow"
        case redCard = "red"
        case substitution = "sub"
        case varReview = "var"
    }

    /// Emoji for the compact trailing view.
    public var symbol: String {
        switch kind {
        case .goal, .penaltyGoal: return "⚽️"
        case .ownGoal: return "🙈"
        case .yellowCard: return "🟨"
        case .redCard: return "🟥"
        case .substitution: return "🔁"
        case .varReview: return "📺"
        }
    }
}

// MARK: - Parcel tracking (conformance added in an extension)

public struct ParcelAttributes {
    public var trackingNumber: String
    public var carrier: Carrier
    public var shippedAt: Date?
    public var recipientInitials: String
    public var weightGrams: UInt32

    public enum Carrier: String, Codable, Hashable, Sendable {
        case dhl = "DHL"
        case ups = "UPS"
        case fedex = "FedEx"
        case postal
    }
}

extension ParcelAttributes: ActivityAttributes {
    public struct ContentState: Codable, Hashable, Sendable {
        public var status: ParcelStatus
        public var stopsAway: Int16?
        public var window: DeliveryWindow?
        public var history: [Checkpoint]
        public var signatureRequired: Bool
        public var proofPhoto: Data?

        public struct Checkpoint: Codable, Hashable, Sendable {
            public var at: Date
            public var city: String
            public var note: String?
        }
    }
}

public enum ParcelStatus: String, Codable, Hashable, Sendable {
    case labelCreated = "label_created"
    case inTransit = "in_transit"
    case outForDelivery = "out_for_delivery"
    case delivered
    case exception
}

public struct DeliveryWindow: Codable, Hashable, Sendable {
    public var start: Date
    public var end: Date

    public var duration: TimeInterval { end.timeIntervalSince(start) }

    public func contains(_ date: Date) -> Bool {
        date >= start && date <= end
    }
}

extension ParcelAttributes.ContentState {
    static let placeholder = ParcelAttributes.ContentState(
        status: .inTransit, stopsAway: nil, window: nil, history: [], signatureRequired: false, proofPhoto: nil)

    var lastCity: String? { history.last?.city }
}

// MARK: - Workout (legacy, kept for old app versions)

@available(iOS 16.1, *)
public struct WorkoutAttributes: ActivityAttributes {
    public struct ContentState: Codable, Hashable {
        public var elapsed: Seconds
        public var heartRate: Int?
        public var calories: Double
        public var zone: HeartZone
        public var paused: Bool = false
        public var splits: [Split] = []

        public struct Split: Codable, Hashable {
            public var index: Int
            public var pace: Seconds
        }
    }

    public var workoutType: String
    public var goal: Goal?

    public enum Goal: Codable, Hashable {
        case distance(meters: Int)
        case duration(Seconds)
        case calories(Int)
        case open
    }

    public enum HeartZone: Int, Codable, Hashable {
        case rest, warmUp, fatBurn, cardio, peak
    }
}

// MARK: - Formatting helpers (not part of any payload)

enum LiveActivityFormat {
    static let shortTime: DateFormatter = {
        let f = DateFormatter()
        f.dateFormat = "HH:mm"
        return f
    }()

    static func countdown(to date: Date, now: Date = Date()) -> String {
        let s = max(0, Int(date.timeIntervalSince(now)))
        return String(format: "%d:%02d", s / 60, s % 60)
    }

    /// "{brace}" placeholders in server templates, e.g. "Order {id} is {stage}".
    static func fill(_ template: String, _ values: [String: String]) -> String {
        var out = template
        for (k, v) in values {
            out = out.replacingOccurrences(of: "{\(k)}", with: v)
        }
        return out
    }

    static let legend = """
        Stages: received → preparing → on_the_way → delivered
        Keys are snake_case { see CodingKeys }
        """

    static let pattern = #"^\{(\w+)\}$"#
}

extension Money {
    /// Adds two amounts of the same currency.
    static func + (lhs: Money, rhs: Money) -> Money {
        precondition(lhs.currency == rhs.currency, "currency mismatch")
        return Money(minorUnits: lhs.minorUnits + rhs.minorUnits, currency: lhs.currency)
    }
}

extension Urgency: Comparable {
    public static func < (lhs: Urgency, rhs: Urgency) -> Bool { lhs.rawValue < rhs.rawValue }
}

// MARK: - Debug support

#if DEBUG
/// Sample payloads for the in-app push playground. Braces in strings must not confuse readers: { } {{ }}.
enum SamplePayloads {
    static let foodUpdate = """
        {"aps": {"event": "update", "timestamp": 1767225600,
                 "content-state": {"stage": "on_the_way", "eta_minutes": 12, "updated_at": 788918400}}}
        """

    static func rideStart(id: UUID) -> String {
        #"{"aps": {"event": "start", "attributes-type": "RideAttributes", "id": "\#(id.uuidString)"}}"#
    }
}
#endif
