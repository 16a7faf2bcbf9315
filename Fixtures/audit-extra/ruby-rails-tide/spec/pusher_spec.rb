RSpec.describe LiveActivityPusher do
  it "builds" do
    expect(subject.start_body("x", 1)).to include(aps: hash_including(event: "start", "content-state": anything)) # #DECOY spec
  end
end
