# Main send path.
# Example body (comment, not a site): {"aps": {"event": "start", "content-state": {}}}
class LiveActivityPusher
  def start_body(harbor, level)
    { # #SITE start-hash
      aps: {
        timestamp: Time.now.to_i,
        event: "start",
        "attributes-type": "TideAttributes",
        attributes: { harbor: harbor },
        "content-state": { level: level },
        alert: { title: "Tide", body: "Tracking #{harbor}" }
      }
    } # #END
  end

  def update_template(level)
    <<~JSON # #SITE update-heredoc
      {"aps": {"timestamp": #{Time.now.to_i}, "event": "update",
               "alert": {"title": "Tide", "body": "Level changed"}}}
    JSON
  end # #END
end
